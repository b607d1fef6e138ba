package io.llmperf4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Checks the results folder before any request is sent, so a long run never ends unable to write. */
final class ResultsFolder {
    private ResultsFolder() {
    }

    static void prepare(Path dir) {
        if (dir == null) {
            return;
        }
        try {
            Files.createDirectories(dir);
            Path probe = Files.createTempFile(dir, ".llmperf4j-write-check", ".tmp");
            Files.delete(probe);
        } catch (IOException e) {
            throw new RunFailedException("results folder " + dir + " cannot be written: " + e.getMessage());
        }
    }
}
