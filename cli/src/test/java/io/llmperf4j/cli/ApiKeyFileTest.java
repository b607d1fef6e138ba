package io.llmperf4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** An --api-key-file that cannot be used says why in words, not with an exception's class name. */
class ApiKeyFileTest {

    private static CliRun run(Path keyFile) {
        // the file is read before anything is sent: no server is needed, and none is reached
        return CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1"), "token-benchmark", "--model", "m",
                "--api-key-file", keyFile.toString());
    }

    @Test
    void aMissingFileDoesNotExist(@TempDir Path dir) {
        Path missing = dir.resolve("nonexistent");
        run(missing).assertOneErrorLine(2, "--api-key-file " + missing + " does not exist");
    }

    /** Without OPENAI_API_BASE the embedded simulator needs no key, but a file that is not there is said now. */
    @Test
    void aMissingFileIsSaidEvenForTheEmbeddedSimulator(@TempDir Path dir) {
        Path missing = dir.resolve("nonexistent");
        CliRun.of(Map.of(), "token-benchmark", "--api-key-file", missing.toString(), "--results-dir", "")
                .assertOneErrorLine(2, "--api-key-file " + missing + " does not exist");
    }

    @Test
    void aDirectoryIsNotAFile(@TempDir Path dir) {
        run(dir).assertOneErrorLine(2, "--api-key-file " + dir + " is a directory, not a file");
    }

    @Test
    void aFileThatIsNotUtf8Says(@TempDir Path dir) throws IOException {
        Path binary = Files.write(dir.resolve("key.bin"), new byte[]{(byte) 0xff, (byte) 0xfe, 0x41});
        run(binary).assertOneErrorLine(2, "--api-key-file " + binary + " is not UTF-8 text");
    }

    @Test
    void otherReasonsInWords() {
        Path file = Path.of("/k");
        // root reads any file, so permission denied is checked on the exception the JDK throws for it
        assertEquals("cannot be read: permission denied", ApiKeyFile.why(file, new AccessDeniedException("/k")));
        assertEquals("is not UTF-8 text", ApiKeyFile.why(file, new MalformedInputException(1)));
        assertEquals("cannot be read: Too many open files",
                ApiKeyFile.why(file, new FileSystemException("/k", null, "Too many open files")));
        assertEquals("cannot be read: an I/O error (IOException)", ApiKeyFile.why(file, new IOException()));
    }
}
