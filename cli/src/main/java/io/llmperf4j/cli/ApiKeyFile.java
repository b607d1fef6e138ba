package io.llmperf4j.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads an API key from a file (first line, trimmed). Messages name the file, never its contents. */
final class ApiKeyFile {
    private ApiKeyFile() {
    }

    static String read(Path file) {
        try {
            String key = Files.readString(file, StandardCharsets.UTF_8).lines().findFirst().orElse("").strip();
            if (key.isEmpty()) {
                throw new UsageException("--api-key-file " + file + " is empty");
            }
            return key;
        } catch (IOException e) {
            throw new UsageException("--api-key-file " + file + " cannot be read: " + e.getClass().getSimpleName());
        }
    }
}
