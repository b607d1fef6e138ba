package io.llmperf4j.llama;

import io.llmperf4j.model.disk.PrivateUserFolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * files starts and stops the engine and server as {@code serve --engine llama} does; the canaries survive. The
 * binding's "Extracted ..." line goes to stderr, not stdout; a platform it has no library for gets one line.
 */
class NativeLibraryCanaryTest {

    @Test
    void startingAndStoppingTheEngineLeavesTheUsersFilesInTheTemporaryFolder(@TempDir Path tmp) throws Exception {
        String random = UUID.randomUUID().toString();
        Path llamaCanary = Files.writeString(tmp.resolve("llama-canary-" + random + ".txt"), "notes");
        Path jllamaCanary = Files.writeString(tmp.resolve("jllama-canary-" + random + ".txt"), "notes");
        Path llamaFolder = Files.createDirectory(tmp.resolve("llama-empty-folder-" + random));

        ChildOutput output = runServeAndStop(tmp, 0);

        for (Path canary : List.of(llamaCanary, jllamaCanary)) {
            assertTrue(Files.exists(canary), canary + " was deleted");
            assertEquals("notes", Files.readString(canary));
        }
        assertTrue(Files.isDirectory(llamaFolder), llamaFolder + " was deleted");
        Path userFolder = tmp.resolve(NativeLibraryFolder.USER_FOLDER_PREFIX
                + PrivateUserFolder.safeName(System.getProperty("user.name", "user")));
        assertEquals(1, output.stdout().size(), "stdout holds only the child's own line: " + output);
        String nativeFolder = output.stdout().get(0).substring("native folder: ".length());
        assertEquals(userFolder, Path.of(nativeFolder).getParent(), "the library went to a folder of ours");
        assertTrue(output.stderr().stream().anyMatch(line -> line.contains("Extracted") && line.contains(nativeFolder)),
                "the binding extracted into that folder, and said so on stderr: " + output);
        assertFalse(Files.exists(Path.of(nativeFolder)), "the process folder is deleted on exit");
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(jllamaCanary, llamaCanary, llamaFolder, userFolder).stream().sorted().toList(),
                    left.sorted().toList(), "nothing else is added to or removed from the temporary folder");
        }
    }

    @Test
    void aPlatformWithoutTheLibraryGetsOneLineSayingSoAndNothingOnStdout(@TempDir Path tmp) throws Exception {
        ChildOutput output = runServeAndStop(tmp, 3, "-Dos.arch=sparcv9");

        assertEquals(List.of(), output.stdout());
        String refusal = output.stderr().stream().filter(line -> line.startsWith("refused: ")).findFirst()
                .orElseThrow(() -> new AssertionError("no refusal: " + output));
        assertTrue(refusal.startsWith("refused: llama.cpp's native library cannot be loaded on "), refusal);
        assertTrue(refusal.contains(" sparcv9 (de.kherud:llama bundles it for Linux x86_64"), refusal);
        assertTrue(refusal.contains("--engine sim still works"), refusal);
    }

    private record ChildOutput(List<String> stdout, List<String> stderr) {
    }

    private static ChildOutput runServeAndStop(Path tmp, int expectedExit, String... jvmOptions)
            throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String id = UUID.randomUUID().toString();
        Path out = Path.of("target", "serve-and-stop-" + id + ".out"); // not in the folder under test
        Path err = Path.of("target", "serve-and-stop-" + id + ".err");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-Djava.io.tmpdir=" + tmp));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ServeAndStop.class.getName(),
                TinyLlamaFixture.modelFile().toAbsolutePath().toString()));
        Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        try {
            assertTrue(process.waitFor(120, TimeUnit.SECONDS), "the child JVM ends");
            ChildOutput output = new ChildOutput(Files.readAllLines(out, StandardCharsets.UTF_8),
                    Files.readAllLines(err, StandardCharsets.UTF_8));
            assertEquals(expectedExit, process.exitValue(), "child output: " + output);
            return output;
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
