package io.llmperf4j.dist;

import io.llmperf4j.distributed.testing.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every Java block of the unpacked archive's docs/java-api.md, compiled and run as the page says: {@code javac -cp
 * lib/llmperf4j.jar}, then {@code java -cp lib/llmperf4j.jar:classes Name URL EMPTY} against the archive's own
 * {@code serve} in another process. A new user has the archive and no Maven coordinate, so the page must work there.
 */
class JavaApiDocIT {
    private static final String NAME = System.getProperty("llmperf4j.release.name");
    private static final Path BASE = Path.of(System.getProperty("llmperf4j.archive.base"));
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern CLASS = Pattern.compile("public (?:final )?class (\\w+)");
    /** What each of the page's programs prints when it ran to its end. */
    private static final Map<String, String> PRINTS = Map.of(
            "SweepExample", "concurrency 16: 20/20 ok",
            "RunExample", "run: COMPLETED, exit code 0");

    @Test
    @Timeout(600)
    void everyJavaBlockCompilesAgainstTheArchiveJarAndRunsAgainstItsServer(@TempDir Path dir) throws Exception {
        assertEquals(0, CommandRun.in(dir, "tar", "-xzf", BASE + ".tar.gz").exitCode());
        Path home = dir.resolve(NAME);
        String jar = home.resolve("lib/llmperf4j.jar").toString();
        String page = Files.readString(home.resolve("docs/java-api.md"));

        Path src = Files.createDirectories(dir.resolve("src"));
        List<String> javac = new ArrayList<>(List.of(jdkTool("javac"), "-cp", jar, "-d", "classes"));
        List<String> programs = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(page);
        while (block.find()) {
            Matcher name = CLASS.matcher(block.group(1));
            assertTrue(name.find(), "a Java block of java-api.md declares a public class: " + block.group(1));
            Path file = src.resolve(name.group(1) + ".java");
            Files.writeString(file, block.group(1));
            javac.add(file.toString());
            if (block.group(1).contains("public static void main(String[] args)")) programs.add(name.group(1));
        }
        assertEquals(List.copyOf(PRINTS.keySet()).stream().sorted().toList(), programs.stream().sorted().toList(),
                "the page's programs");
        CommandRun compiled = CommandRun.in(dir, javac.toArray(String[]::new));
        assertEquals(0, compiled.exitCode(), compiled.output());

        int port = LoopbackPorts.next();
        Path serverLog = dir.resolve("serve.log");
        ProcessBuilder serve = new ProcessBuilder(home.resolve("bin/llmperf4j").toString(), "serve", "--port",
                Integer.toString(port)).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(serverLog.toFile());
        serve.environment().put("LLMPERF4J_JAVA_OPTS", "-XX:TieredStopAtLevel=1");
        Process server = serve.start();
        try {
            awaitListening(server, serverLog);
            for (String program : programs) {
                // as the page's command, with the quick client warm-up and C1 alone: no figure here is read
                ProcessBuilder run = new ProcessBuilder(jdkTool("java"), "-cp",
                        jar + java.io.File.pathSeparator + "classes", program, "http://127.0.0.1:" + port + "/v1",
                        "EMPTY").directory(dir.toFile()).redirectErrorStream(true);
                run.environment().put("JDK_JAVA_OPTIONS", "-Dllmperf4j.client-warmup=quick -XX:TieredStopAtLevel=1");
                Process p = run.start();
                String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
                assertEquals(0, p.exitValue(), program + ": " + out);
                assertTrue(out.contains(PRINTS.get(program)), program + ": " + out);
            }
        } finally {
            server.destroy();
            if (!server.waitFor(20, TimeUnit.SECONDS)) server.destroyForcibly();
        }
    }

    private static void awaitListening(Process server, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline && server.isAlive()) {
            if (Files.readString(log).contains("listening")) return;
            Thread.sleep(200);
        }
        throw new AssertionError("serve did not start: " + Files.readString(log));
    }

    /** The JDK's own tool (the build runs on a JDK; the page's commands take javac and java from the PATH). */
    private static String jdkTool(String tool) {
        Path path = Path.of(System.getProperty("java.home"), "bin", tool);
        assertTrue(Files.isExecutable(path), tool + " is not in " + System.getProperty("java.home"));
        return path.toString();
    }
}
