package io.llmperf4j.report.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A file written whole or not at all: written under a hidden name beside its place, then renamed into it, so a full
 * disk or a kill mid-write leaves the earlier file (or none), never a cut one under the real name.
 */
public final class WholeFile {
    /** What a file is written under until it is whole; never a result's name (RunFiles and report skip it). */
    public static final String PARTIAL_SUFFIX = ".partial";

    /** Writes one file's content into the path it is given. */
    @FunctionalInterface
    public interface Content {
        void writeTo(Path file) throws IOException;
    }

    private WholeFile() {
    }

    /** Writes {@code content} to {@code target} whole: to {@code .<name>.partial}, then renamed into place. */
    public static Path write(Path target, Content content) throws IOException {
        Path partial = target.resolveSibling("." + target.getFileName() + PARTIAL_SUFFIX);
        try {
            content.writeTo(partial);
            ResultsDisk.of(target).place(partial, target);
            return target;
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(partial);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }
}
