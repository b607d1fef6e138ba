package io.llmperf4j.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs the "Try it on one machine" block of docs/distributed.md as written, each command its own process of
 * {@code bin/llmperf4j} (the jar this build made): workers first, as the block lists them, and the coordinator first.
 * Only the ports (free ones instead of 8000 and 5701-5703), the cluster name (unique) and the results folder (a
 * temporary one) are changed, so parallel builds on one machine do not meet. For the same reason the two orders run
 * side by side (each its own processes, ports, cluster and folder): most of each one's time is its JVMs starting and
 * the members looking for each other every 3 s, not CPU. (On the methods, not the class: other classes still run
 * one at a time.)
 */
class ClusterQuickStartIT {
    private static final Path ROOT = Path.of(System.getProperty("llmperf4j.root")).toAbsolutePath().normalize();
    private static final Pattern BLOCK = Pattern.compile("## Try it on one machine.*?```bash\\n(.*?)```",
            Pattern.DOTALL);

    private final List<Process> background = new ArrayList<>();
    /** Processes started so far, for their log files' names. */
    private int started;

    @AfterEach
    void stopEverything() throws InterruptedException {
        for (Process p : background) p.destroy();
        for (Process p : background) {
            if (!p.waitFor(20, TimeUnit.SECONDS)) p.destroyForcibly();
        }
    }

    @Test
    @Timeout(300)
    @Execution(ExecutionMode.CONCURRENT)
    void workersStartedFirstJoinTheCoordinatorStartedAfterThem(@TempDir Path dir) throws Exception {
        List<String> commands = commands(dir);
        Map<String, String> env = new HashMap<>();
        Process coordinator = null;
        for (String command : commands) {
            if (command.startsWith("export ")) {
                exports(command, env);
            } else if (command.startsWith("kill ")) {
                continue; // the test stops its own processes
            } else if (command.endsWith("&")) {
                background.add(start(command.substring(0, command.length() - 1).strip(), env, dir));
                if (command.contains(" serve ")) awaitLine(background.get(background.size() - 1), dir);
            } else {
                coordinator = start(command, env, dir);
            }
        }
        assertRanOnBothWorkers(coordinator, dir);
    }

    @Test
    @Timeout(300)
    @Execution(ExecutionMode.CONCURRENT)
    void aCoordinatorStartedFirstWaitsForTheWorkers(@TempDir Path dir) throws Exception {
        List<String> commands = commands(dir);
        Map<String, String> env = new HashMap<>();
        Process coordinator = null;
        List<String> workers = new ArrayList<>();
        for (String command : commands) {
            if (command.startsWith("export ")) {
                exports(command, env);
            } else if (command.startsWith("kill ")) {
                continue;
            } else if (command.contains(" serve ")) {
                background.add(start(command.substring(0, command.length() - 1).strip(), env, dir));
                awaitLine(background.get(background.size() - 1), dir);
            } else if (command.endsWith("&")) {
                workers.add(command.substring(0, command.length() - 1).strip());
            } else {
                coordinator = start(command, env, dir);
            }
        }
        assertTrue(workers.size() == 2 && coordinator != null, "the block has two workers and a coordinator");
        awaitText(dir, "waiting for 2 workers"); // the coordinator is up before any worker starts
        for (String w : workers) background.add(start(w, env, dir));
        assertRanOnBothWorkers(coordinator, dir);
    }

    private void assertRanOnBothWorkers(Process coordinator, Path dir) throws Exception {
        assertTrue(coordinator.waitFor(240, TimeUnit.SECONDS), "the coordinator did not end: " + logs(dir));
        assertEquals(0, coordinator.exitValue(), logs(dir));
        Path results = dir.resolve("dist-demo");
        Path summary;
        try (Stream<Path> files = Files.list(results)) {
            summary = files.filter(p -> p.getFileName().toString().endsWith("_llmperf4j_summary.json")).findFirst()
                    .orElseThrow(() -> new AssertionError("no llmperf4j summary in " + results + ": " + logs(dir)));
        }
        JsonNode root = new ObjectMapper().readTree(summary.toFile());
        JsonNode workers = root.path("distributed").path("workers");
        assertEquals(2, workers.size(), root.path("distributed").toString());
        int recorded = 0;
        for (JsonNode w : workers) {
            assertEquals(4, w.path("requests_assigned").asInt(), w.toString());
            assertEquals(4, w.path("requests_succeeded").asInt(), w.toString());
            recorded += w.path("requests_recorded").asInt();
        }
        assertEquals(8, recorded);
    }

    /** The block's commands, continuation lines joined, with this test's ports, cluster name and folder. */
    private static List<String> commands(Path dir) throws IOException {
        Matcher m = BLOCK.matcher(Files.readString(ROOT.resolve("docs/distributed.md")));
        assertTrue(m.find(), "docs/distributed.md has no 'Try it on one machine' bash block");
        String block = m.group(1).replace("\\\n", " ");
        Map<String, String> replacements = new LinkedHashMap<>();
        for (String port : List.of("8000", "5701", "5702", "5703")) {
            replacements.put(port, Integer.toString(LoopbackPorts.next()));
        }
        replacements.put("--cluster demo", "--cluster demo-" + UUID.randomUUID());
        replacements.put("--results-dir dist-demo", "--results-dir " + dir.resolve("dist-demo"));
        // One pass over whole tokens: replacing one after another would rewrite a free port drawn for 8000
        // that contains "5703" (25703) a second time.
        Pattern tokens = Pattern.compile(replacements.keySet().stream().map(Pattern::quote)
                .collect(Collectors.joining("|", "(?<![\\w-])(", ")(?![\\w-])")));
        List<String> out = new ArrayList<>();
        for (String line : block.split("\n")) {
            String command = line.strip().replaceAll(" +", " ");
            if (command.isEmpty() || command.startsWith("#")) continue;
            out.add(tokens.matcher(command)
                    .replaceAll(r -> Matcher.quoteReplacement(replacements.get(r.group(1)))));
        }
        return out;
    }

    private static void exports(String command, Map<String, String> env) {
        for (String assignment : command.substring("export ".length()).split(" ")) {
            int eq = assignment.indexOf('=');
            env.put(assignment.substring(0, eq), assignment.substring(eq + 1));
        }
    }

    private Process start(String command, Map<String, String> env, Path dir) throws IOException {
        List<String> argv = new ArrayList<>(List.of(command.split(" ")));
        assertTrue(argv.get(0).equals("bin/llmperf4j"), "every command runs the launcher: " + command);
        argv.set(0, ROOT.resolve("bin/llmperf4j").toString());
        ProcessBuilder pb = new ProcessBuilder(argv).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("process-" + started++ + ".log").toFile());
        pb.environment().putAll(env);
        // the quick client warm-up in every process (ClientWarmup.Budget.CAP_PROPERTY): no TTFT here is read, and a
        // worker's or a sweep's full one is seconds of CPU for each of the processes two start orders run at once.
        // C1 alone (the launcher then drops its C2-only flags): the launcher's JIT serves long runs, and for these
        // processes' few seconds it is the interpreter plus C2's compiles, about twice the CPU of a C1 run, eight
        // JVMs at once on a 2-core machine; no figure here depends on the JIT. The launcher's own flags still run
        // in ReleaseArchiveIT.
        pb.environment().put("LLMPERF4J_JAVA_OPTS", "-Dllmperf4j.client-warmup=quick -XX:TieredStopAtLevel=1");
        return pb.start();
    }

    private static void awaitLine(Process server, Path dir) throws Exception {
        awaitText(dir, "listening");
        assertTrue(server.isAlive(), logs(dir));
    }

    /** Waits until some process's log holds {@code text}. */
    private static void awaitText(Path dir, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (logs(dir).contains(text)) return;
            Thread.sleep(200);
        }
        throw new AssertionError("no process printed '" + text + "': " + logs(dir));
    }

    private static String logs(Path dir) {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.getFileName().toString().endsWith(".log")).sorted().toList()) {
                all.append("\n--- ").append(p.getFileName()).append('\n').append(Files.readString(p));
            }
        } catch (IOException e) {
            all.append(e);
        }
        return all.toString();
    }
}
