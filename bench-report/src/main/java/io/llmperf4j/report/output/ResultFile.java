package io.llmperf4j.report.output;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** One kind of result file of a level (or llmperf's trio): a strategy of {@link ResultFiles}. */
@FunctionalInterface
public interface ResultFile {
    /**
     * Writes this file for {@code level} into {@code dir} (created if missing).
     *
     * @return the files written, in the order they are named to the user (none when it does not apply)
     */
    List<Path> write(LevelOutput level, Path dir) throws IOException;
}
