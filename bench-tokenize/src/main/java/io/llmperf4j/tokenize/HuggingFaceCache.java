package io.llmperf4j.tokenize;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Finds a model's {@code tokenizer.json} in the local HuggingFace hub cache, laid out as {@code huggingface_hub}
 * writes it: {@code HUB/models--ORG--NAME/refs/BRANCH} holds a commit hash, and
 * {@code HUB/models--ORG--NAME/snapshots/COMMIT/tokenizer.json} the file (usually a link into {@code blobs/}).
 * Reads only; never downloads.
 */
final class HuggingFaceCache {
    /** {@code ORG/NAME} with an optional {@code @REVISION}; the characters HuggingFace allows in repo names. */
    static final Pattern MODEL_ID = Pattern.compile(
            "([A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*)(?:@([A-Za-z0-9][A-Za-z0-9._/-]*))?");
    private static final String DEFAULT_BRANCH = "main";

    private HuggingFaceCache() {
    }

    /** A cached tokenizer.json and the commit it belongs to. */
    record Snapshot(Path tokenizerJson, String commit) {
    }

    /** What a lookup found: the snapshot, or why there is none (a sentence fragment naming the paths looked at). */
    record Lookup(Snapshot snapshot, String problem) {
        boolean found() {
            return snapshot != null;
        }
    }

    static Path modelFolder(Path hubCache, String repoId) {
        return hubCache.resolve("models--" + repoId.replace("/", "--"));
    }

    /**
     * @param revision a branch, tag or commit; {@code null} for {@code main}, or, when the cache has no
     *                 {@code refs/main}, the only snapshot holding a tokenizer.json
     */
    static Lookup locate(Path hubCache, String repoId, String revision) {
        Path model = modelFolder(hubCache, repoId).toAbsolutePath();
        if (!Files.isDirectory(model)) return missing(model + " does not exist");
        Path snapshots = model.resolve("snapshots");
        String ref = revision == null ? DEFAULT_BRANCH : revision;
        String commit;
        Path refFile = model.resolve("refs").resolve(ref);
        if (Files.isRegularFile(refFile)) {
            try {
                commit = Files.readString(refFile, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                return missing("cannot read " + refFile + ": " + e.getMessage());
            }
            if (commit.isEmpty()) return missing(refFile + " is empty");
        } else if (!ref.contains("/") && !ref.contains("..") && Files.isDirectory(snapshots.resolve(ref))) {
            commit = ref; // a commit hash
        } else if (revision == null) {
            List<String> withTokenizer = snapshotsWithTokenizer(snapshots);
            if (withTokenizer.size() != 1) {
                return missing(refFile + " does not exist and " + withTokenizer.size() + " snapshots in " + snapshots
                        + " hold a tokenizer.json" + (withTokenizer.isEmpty() ? "" : " (" + String.join(", ", withTokenizer)
                        + "); name one as " + repoId + "@COMMIT"));
            }
            commit = withTokenizer.get(0);
        } else {
            return missing("revision '" + revision + "' is neither " + refFile + " nor a folder in " + snapshots);
        }
        Path snapshot = snapshots.resolve(commit);
        Path file = snapshot.resolve(Tokenizers.TOKENIZER_JSON);
        if (Files.isRegularFile(file)) return new Lookup(new Snapshot(file, commit), null);
        if (!Files.isDirectory(snapshot)) return missing(snapshot + " does not exist");
        if (Files.exists(snapshot.resolve("tokenizer.model"))) {
            return missing(snapshot + " holds only a SentencePiece tokenizer.model, no tokenizer.json (convert it with "
                    + "transformers' AutoTokenizer.from_pretrained(...).save_pretrained(DIR))");
        }
        return missing(file + " does not exist");
    }

    private static Lookup missing(String problem) {
        return new Lookup(null, problem);
    }

    private static List<String> snapshotsWithTokenizer(Path snapshots) {
        if (!Files.isDirectory(snapshots)) return List.of();
        try (Stream<Path> children = Files.list(snapshots)) {
            return children.filter(dir -> Files.isRegularFile(dir.resolve(Tokenizers.TOKENIZER_JSON)))
                    .map(dir -> dir.getFileName().toString())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
