package io.llmperf4j.llama;

import io.llmperf4j.model.disk.PrivateUserFolder;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where a local run keeps the generated tiny model ({@link TinyLlamaModel}, about 17 MB): in a folder of the
 * temporary folder that only this user can write, {@code <tmp>/llmperf4j-llama-models-<user>/} (owner-only), so the
 * file llama.cpp parses is one we wrote, never a file another local user planted under a well-known name. It is
 * written once and reused; when that folder name is taken by someone else, a fresh private folder is used and removed
 * when the JVM exits. The temporary folder itself must exist: it is never created.
 */
public final class TinyModelFile {
    static final String FOLDER_PREFIX = "llmperf4j-llama-models-";

    private TinyModelFile() {
    }

    /**
     * The model file's path in the private folder of {@code user} under {@code tempRoot} (the folder is created,
     * the file may not exist yet: {@link TinyLlamaModel#writeIfAbsent} writes it).
     *
     * @throws IOException when {@code tempRoot} does not exist or no private folder can be made in it
     */
    public static Path privatePath(Path tempRoot, String user) throws IOException {
        Path folder = PrivateUserFolder.create(tempRoot, FOLDER_PREFIX, user);
        Path file = folder.resolve(TinyLlamaModel.fileName(TinyLlamaModel.DEFAULT_SEED));
        if (!PrivateUserFolder.isPerUser(folder, FOLDER_PREFIX, user)) {
            folder.toFile().deleteOnExit(); // registered first, so deleted after the file
            file.toFile().deleteOnExit();
        }
        return file;
    }
}
