package io.llmperf4j.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The unpacked archive's sh launcher (the repository's bin/llmperf4j with the jar taken from lib/) started as a new
 * user starts it: through a symbolic link on their PATH, and on a machine without a java.
 */
class LauncherIT {
    private static final String NAME = System.getProperty("llmperf4j.release.name");
    private static final String VERSION = System.getProperty("llmperf4j.version");
    private static final Path BASE = Path.of(System.getProperty("llmperf4j.archive.base"));

    private static Path unpack(Path dir) throws Exception {
        assertEquals(0, CommandRun.in(dir, "tar", "-xzf", BASE + ".tar.gz").exitCode());
        return dir.resolve(NAME).resolve("bin/llmperf4j");
    }

    @Test
    void aLinkToTheLauncherFindsTheJarBesideTheLinkedFile(@TempDir Path dir) throws Exception {
        unpack(dir);
        Path bin = Files.createDirectories(dir.resolve("home/bin"));
        // a relative link to a relative link: each is resolved from the folder it lives in
        Files.createSymbolicLink(dir.resolve("home/llmperf4j"), Path.of("..", NAME, "bin", "llmperf4j"));
        Files.createSymbolicLink(bin.resolve("llmperf4j"), Path.of("../llmperf4j"));

        CommandRun version = CommandRun.in(dir, bin.resolve("llmperf4j").toString(), "--version");
        assertEquals(0, version.exitCode(), version.output());
        assertTrue(version.output().startsWith("llmperf4j " + VERSION), version.output());
    }

    @Test
    void withoutAJavaItSaysWhatItNeedsInOneLine(@TempDir Path dir) throws Exception {
        Path launcher = unpack(dir);
        // a PATH with the two tools the launcher runs before java, and no java
        Path tools = Files.createDirectories(dir.resolve("tools"));
        for (String tool : new String[] {"dirname", "readlink"}) {
            Files.createSymbolicLink(tools.resolve(tool), which(tool));
        }
        Run none = run(launcher, Map.of("PATH", tools.toString()));
        assertEquals(1, none.exitCode(), none.output());
        assertEquals("llmperf4j: no java on the PATH and JAVA_HOME is not set; llmperf4j needs Java 17 or later: "
                + "install it, or set JAVA_HOME to it\n", none.output());

        Run badHome = run(launcher, Map.of("PATH", tools.toString(), "JAVA_HOME", dir.resolve("nojava").toString()));
        assertEquals(1, badHome.exitCode(), badHome.output());
        assertEquals("llmperf4j: JAVA_HOME (" + dir.resolve("nojava") + ") has no bin/java; set it to a Java 17 or "
                + "later installation, or unset it to use the java on the PATH\n", badHome.output());
    }

    private record Run(int exitCode, String output) {
    }

    /** The launcher run by bash (found here, not on the narrowed PATH) with exactly {@code env}. */
    private static Run run(Path launcher, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(which("bash").toString(), launcher.toString(), "--version")
                .redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(env);
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        return new Run(p.exitValue(), out);
    }

    private static Path which(String tool) {
        for (String folder : System.getenv("PATH").split(":")) {
            Path candidate = Path.of(folder, tool);
            if (Files.isExecutable(candidate)) return candidate;
        }
        throw new AssertionError(tool + " is not on the PATH");
    }
}
