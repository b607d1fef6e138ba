package io.llmperf4j.llama;

import io.llmperf4j.model.disk.PrivateUserFolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The private folder of llama.cpp's native library: where it is, who may use it, what is cleaned up. */
class NativeLibraryFolderTest {
    private static final long OWN_PID = ProcessHandle.current().pid();

    @Test
    void oneOwnerOnlyFolderPerProcessInsideAPerUserFolder(@TempDir Path tmp) throws IOException {
        Path folder = NativeLibraryFolder.create(tmp, "Ada Lovelace", OWN_PID);

        assertEquals(tmp.resolve("llmperf4j-llama-native-ada_lovelace").resolve(Long.toString(OWN_PID)), folder);
        assertTrue(Files.isDirectory(folder));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder.getParent())));
    }

    @Test
    void theFoldersOfEndedProcessesAreRemovedThoseOfRunningOnesKept(@TempDir Path tmp) throws Exception {
        long ended = endedProcessPid();
        long running = ProcessHandle.current().parent().orElseThrow().pid();
        Path user = tmp.resolve("llmperf4j-llama-native-ada");
        Path endedFolder = Files.createDirectories(user.resolve(Long.toString(ended)));
        Files.writeString(endedFolder.resolve("libjllama.so"), "left by kill -9");
        Path runningFolder = Files.createDirectories(user.resolve(Long.toString(running)));
        Files.writeString(runningFolder.resolve("libjllama.so"), "in use");

        NativeLibraryFolder.create(tmp, "ada", OWN_PID);

        assertFalse(Files.exists(endedFolder));
        assertEquals("in use", Files.readString(runningFolder.resolve("libjllama.so")));
    }

    @Test
    void aFolderLeftWithThisProcessIdIsEmptied(@TempDir Path tmp) throws IOException {
        Path stale = Files.createDirectories(tmp.resolve("llmperf4j-llama-native-ada").resolve(Long.toString(OWN_PID)));
        Files.writeString(stale.resolve("libjllama.so"), "an earlier process with this pid");

        Path folder = NativeLibraryFolder.create(tmp, "ada", OWN_PID);

        assertEquals(stale, folder);
        try (var files = Files.list(folder)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void whenTheUserFolderNameIsTakenAFreshPrivateFolderIsUsed(@TempDir Path tmp) throws IOException {
        Path taken = Files.writeString(tmp.resolve("llmperf4j-llama-native-ada"), "a file, not our folder");

        Path folder = NativeLibraryFolder.create(tmp, "ada", OWN_PID);

        assertEquals("a file, not our folder", Files.readString(taken));
        assertEquals(tmp, folder.getParent());
        assertNotEquals(taken, folder);
        assertTrue(folder.getFileName().toString().startsWith("llmperf4j-llama-native-"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
    }

    @Test
    void userNamesBecomeOneSafePathSegment() {
        assertEquals("ada", PrivateUserFolder.safeName("ada"));
        assertEquals("domain_ada", PrivateUserFolder.safeName("DOMAIN\\ada"));
        assertEquals(".._", PrivateUserFolder.safeName("../"));
        assertEquals("user", PrivateUserFolder.safeName(""));
    }

    private static long endedProcessPid() throws Exception {
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-version").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        process.waitFor();
        return process.pid();
    }
}
