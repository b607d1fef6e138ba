package io.llmperf4j.llama;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 21 item 3: starting the llama engine deleted the user's files named {@code llama*} / {@code jllama*} in the
 * temporary folder. A fresh JVM (the binding's loader runs once per JVM) whose {@code java.io.tmpdir} holds canary
 * files starts and stops the engine and server as {@code serve --engine llama} does; the canaries survive.
 */
class NativeLibraryCanaryTest {

    @Test
    void startingAndStoppingTheEngineLeavesTheUsersFilesInTheTemporaryFolder(@TempDir Path tmp) throws Exception {
        String random = UUID.randomUUID().toString();
        Path llamaCanary = Files.writeString(tmp.resolve("llama-canary-" + random + ".txt"), "notes");
        Path jllamaCanary = Files.writeString(tmp.resolve("jllama-canary-" + random + ".txt"), "notes");
        Path llamaFolder = Files.createDirectory(tmp.resolve("llama-empty-folder-" + random));

        List<String> output = runServeAndStop(tmp);

        for (Path canary : List.of(llamaCanary, jllamaCanary)) {
            assertTrue(Files.exists(canary), canary + " was deleted");
            assertEquals("notes", Files.readString(canary));
        }
        assertTrue(Files.isDirectory(llamaFolder), llamaFolder + " was deleted");
        Path userFolder = tmp.resolve(NativeLibraryFolder.USER_FOLDER_PREFIX
                + PrivateUserFolder.safeName(System.getProperty("user.name", "user")));
        String nativeFolder = output.stream().filter(line -> line.startsWith("native folder: ")).findFirst()
                .orElseThrow(() -> new AssertionError("no folder printed: " + output)).substring(15);
        assertEquals(userFolder, Path.of(nativeFolder).getParent(), "the library went to a folder of ours");
        assertTrue(output.stream().anyMatch(line -> line.contains("Extracted") && line.contains(nativeFolder)), 
                "the binding extracted into that folder: " + output);
        assertFalse(Files.exists(Path.of(nativeFolder)), "the process folder is deleted on exit");
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(jllamaCanary, llamaCanary, llamaFolder, userFolder).stream().sorted().toList(),
                    left.sorted().toList(), "nothing else is added to or removed from the temporary folder");
        }
    }

    private static List<String> runServeAndStop(Path tmp) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path log = Path.of("target", "serve-and-stop-" + UUID.randomUUID() + ".log"); // not in the folder under test
        Process process = new ProcessBuilder(java.toString(), "-Djava.io.tmpdir=" + tmp,
                "-cp", System.getProperty("java.class.path"), ServeAndStop.class.getName(),
                TinyLlamaFixture.modelFile().toAbsolutePath().toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try {
            assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the child JVM ends");
            List<String> output = Files.readAllLines(log, StandardCharsets.UTF_8);
            assertEquals(0, process.exitValue(), "child output: " + output);
            return output;
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }
}
