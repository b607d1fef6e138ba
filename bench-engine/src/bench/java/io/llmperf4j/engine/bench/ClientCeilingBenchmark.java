package io.llmperf4j.engine.bench;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The client's ceiling: how many SSE events per second the real client ingests, timestamps and parses when the
 * server never makes it wait. The simulator runs in a child JVM (same classpath) at zero TTFT and zero inter-token
 * delay, so every event of a response is due at once and goes out in batches; this JVM runs only the client, a
 * closed loop of {@code streams} concurrent streams, and reports:
 * <ul>
 *   <li>events/s: data events of the measured records (parsed on the I/O threads) over the measured window;</li>
 *   <li>peak RSS of this (client) process: {@code VmHWM} of {@code /proc/self/status};</li>
 *   <li>the client's overhead during the run ({@code ClientOverheadMonitor}).</li>
 * </ul>
 * Arguments {@code key=value}: streams (256), seconds (10), warmupSeconds (3), tokens per response (256), itlMs
 * of the server (0; a positive value measures RSS at a paced load instead), serverIoThreads (1).
 */
public final class ClientCeilingBenchmark {

    private ClientCeilingBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = Args.parse(args);
        int streams = Integer.parseInt(a.getOrDefault("streams", "256"));
        int seconds = Integer.parseInt(a.getOrDefault("seconds", "10"));
        int warmupSeconds = Integer.parseInt(a.getOrDefault("warmupSeconds", "3"));
        int tokens = Integer.parseInt(a.getOrDefault("tokens", "256"));
        String itlMs = a.getOrDefault("itlMs", "0");
        String serverIoThreads = a.getOrDefault("serverIoThreads", "1");

        Process server = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), SimulatorProcess.class.getName(),
                "ioThreads=" + serverIoThreads, "itlMs=" + itlMs, "maxSequences=" + Math.max(streams, 1))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader serverOut = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = serverOut.readLine();
            if (line == null || !line.startsWith("port ")) throw new IllegalStateException("simulator: " + line);
            String baseUrl = "http://127.0.0.1:" + line.substring(5).trim() + "/v1";
            run(baseUrl, streams, seconds, warmupSeconds, tokens, itlMs, serverIoThreads);
        } finally {
            server.getOutputStream().close();
            server.destroy();
            server.waitFor();
        }
    }

    private static void run(String baseUrl, int streams, int seconds, int warmupSeconds, int tokens, String itlMs,
                            String serverIoThreads) throws Exception {
        List<RequestSpec> specs = IntStream.range(0, 1024)
                .mapToObj(i -> new RequestSpec(i, "ceiling prompt " + i, 4, tokens)).toList();
        ClientConfig config = ClientConfig.builder(EndpointUrls.chatCompletions(baseUrl), "bench-model")
                .maxConnections(streams).build();
        ClosedLoopSettings settings = new ClosedLoopSettings(streams,
                Duration.ofSeconds(warmupSeconds + (long) seconds))
                .withMaxCompleted(Integer.MAX_VALUE)
                .withWarmup(Warmup.duration(Duration.ofSeconds(warmupSeconds)))
                .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER);
        try (NettyLlmClient client = new NettyLlmClient(config)) {
            System.out.printf(Locale.ROOT, "client ceiling: %d streams, %d tokens per response (one per event), "
                            + "server ITL %s ms in a child JVM (%s I/O thread), %d s after %d s warmup; client "
                            + "%s, %d I/O + %d worker threads; %d CPUs; %s; max heap %d MB%n", streams, tokens,
                    itlMs, serverIoThreads, seconds, warmupSeconds, client.transportName(), config.ioThreads(),
                    config.workerThreads(), Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.vm.version"), Runtime.getRuntime().maxMemory() >> 20);
            ClosedLoopResult result = new ClosedLoopRunner(client, text -> -1).run(specs, settings);
            long events = 0;
            int failed = 0;
            int cancelled = 0;
            for (RequestRecord r : result.records()) {
                events += r.dataEventCount();
                if (!r.succeeded()) {
                    if (r.failure().kind() == io.llmperf4j.model.FailureKind.CANCELLED) cancelled++;
                    else failed++;
                }
            }
            double windowSeconds = result.durationNanos() / 1e9;
            double eventsPerSecond = events / windowSeconds;
            System.out.printf(Locale.ROOT, "requests: %d measured (%d warmup), %d failed, %d cancelled at the end; "
                            + "%d data events in %.2f s%n", result.records().size(), result.warmupRecords().size(),
                    failed, cancelled, events, windowSeconds);
            ClientOverhead o = result.clientOverhead();
            System.out.printf(Locale.ROOT, "client overhead: event-loop lag p50 %.3f ms p99 %.3f ms max %.3f ms; "
                            + "I/O busy mean %.0f%% max %.0f%%; process CPU %.0f%% of %d cores; GC %d, %.0f ms%n",
                    o.lagP50Nanos() / 1e6, o.lagP99Nanos() / 1e6, o.lagMaxNanos() / 1e6, 100 * o.ioBusyShareMean(),
                    100 * o.ioBusyShareMax(), 100 * o.processCpuShare(), o.availableProcessors(), o.gcCount(),
                    o.gcPauseNanos() / 1e6);
            // per CPU-second of this process: a figure less sensitive to other load on a shared machine
            double clientCpuSeconds = o.processCpuShare() * o.availableProcessors() * o.wallNanos() / 1e9;
            System.out.printf(Locale.ROOT, "client CPU: %.2f CPU-s over the run, %,.0f events per client CPU-second "
                    + "(warmup included in the CPU time)%n", clientCpuSeconds,
                    (events + warmupEvents(result)) / clientCpuSeconds);
            List<String> memory = memory();
            System.out.println("client memory: " + String.join(", ", memory));
            boolean paced = Double.parseDouble(itlMs) > 0;
            if (paced) {
                System.out.printf(Locale.ROOT, "RESULT paced %d streams (server ITL %s ms) = %,.0f events/s%n",
                        streams, itlMs, eventsPerSecond);
            } else {
                System.out.printf(Locale.ROOT, "RESULT ceiling %d streams = %,.0f events/s (target >= 575,000: %s)%n",
                        streams, eventsPerSecond, eventsPerSecond >= 575_000 ? "met" : "NOT met");
            }
            String jvmOptions = String.join(" ", java.lang.management.ManagementFactory.getRuntimeMXBean()
                    .getInputArguments());
            long hwmKb = kilobytes("VmHWM");
            if (hwmKb > 0) {
                System.out.printf(Locale.ROOT, "RESULT peak RSS %d streams%s, JVM options [%s] = %.1f MB%s%n",
                        streams, paced ? " paced" : " at the ceiling", jvmOptions, hwmKb / 1024.0,
                        streams == 256 ? " (target <= 150 MB: " + (hwmKb <= 150 * 1024 ? "met" : "NOT met") + ")"
                                : "");
            }
        }
    }

    private static long warmupEvents(ClosedLoopResult result) {
        return result.warmupRecords().stream().mapToLong(RequestRecord::dataEventCount).sum();
    }

    private static List<String> memory() throws Exception {
        List<String> out = new ArrayList<>();
        for (String key : List.of("VmHWM", "VmRSS")) {
            long kb = kilobytes(key);
            if (kb > 0) out.add(String.format(Locale.ROOT, "%s %.1f MB", key, kb / 1024.0));
        }
        Runtime rt = Runtime.getRuntime();
        out.add(String.format(Locale.ROOT, "heap committed %d MB", rt.totalMemory() >> 20));
        return out;
    }

    /** A {@code /proc/self/status} field in kB, or -1 when not on Linux. */
    private static long kilobytes(String key) throws Exception {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) return -1;
        for (String l : Files.readAllLines(status)) {
            if (l.startsWith(key + ":")) return Long.parseLong(l.substring(key.length() + 1).replace("kB", "").trim());
        }
        return -1;
    }
}
