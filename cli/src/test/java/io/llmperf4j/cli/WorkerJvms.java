package io.llmperf4j.cli;

import io.llmperf4j.distributed.testing.LoopbackPorts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two {@code worker} JVMs on 127.0.0.1 for the tests that kill one with SIGKILL (a process, not an in-process member:
 * what the QA did), each logging to its own file; {@link #close} stops them.
 */
final class WorkerJvms implements AutoCloseable {

    private final List<Process> processes = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();

    /** Starts two workers of {@code cluster} that know the coordinator's port and each other; their ids, in order. */
    List<String> start(String cluster, int coordinatorPort, Path tmp) throws IOException {
        List<String> ids = List.of("127.0.0.1:" + LoopbackPorts.next(), "127.0.0.1:" + LoopbackPorts.next());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int i = 0; i < ids.size(); i++) {
            List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"), "io.llmperf4j.cli.Main", "worker",
                    "--cluster", cluster, "--bind", ids.get(i), "--member", "127.0.0.1:" + coordinatorPort,
                    "--no-client-warmup"));
            for (String other : ids) command.addAll(List.of("--member", other));
            Path log = tmp.resolve("worker-" + i + ".log");
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().remove("OPENAI_API_BASE");
            builder.environment().put("OPENAI_API_KEY", "EMPTY"); // each worker's own key, for its pre-run check
            processes.add(builder.start());
            logs.add(log);
        }
        return ids;
    }

    /** The worker started {@code i}-th. */
    Process process(int i) {
        return processes.get(i);
    }

    /** Its log file. */
    Path log(int i) {
        return logs.get(i);
    }

    /** Every worker's log, for a failed assertion's message. */
    String logs() {
        return text(logs);
    }

    /** The logs' contents, each under its file name. */
    static String text(List<Path> logs) {
        StringBuilder b = new StringBuilder();
        for (Path log : logs) {
            try {
                b.append("\n--- ").append(log.getFileName()).append('\n').append(Files.readString(log));
            } catch (IOException e) {
                b.append("\n--- ").append(log.getFileName()).append(": ").append(e);
            }
        }
        return b.toString();
    }

    @Override
    public void close() throws InterruptedException {
        for (Process p : processes) p.destroyForcibly();
        for (Process p : processes) p.waitFor(10, TimeUnit.SECONDS);
    }
}
