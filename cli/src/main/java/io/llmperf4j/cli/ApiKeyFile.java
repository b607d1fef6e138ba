package io.llmperf4j.cli;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
            throw new UsageException("--api-key-file " + file + " " + why(file, e));
        }
    }

    /** Why the file could not be read, in words (the exception's class name means nothing to a user). */
    static String why(Path file, IOException e) {
        if (e instanceof NoSuchFileException) return "does not exist";
        if (e instanceof AccessDeniedException) return "cannot be read: permission denied";
        if (e instanceof CharacterCodingException) return "is not UTF-8 text";
        if (Files.isDirectory(file)) return "is a directory, not a file";
        // the operating system's reason ("Too many open files"), never the message: it may quote the path twice
        String reason = e instanceof FileSystemException fs ? fs.getReason() : null;
        return "cannot be read: " + (reason != null && !reason.isBlank() ? reason : "an I/O error ("
                + e.getClass().getSimpleName() + ")");
    }
}
