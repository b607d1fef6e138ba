package io.llmperf4j.engine.bench;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.LatencyPercentiles;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopRunner;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.OpenLoopSummary;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Self-benchmark of the open-loop pacer: send lag (actual minus intended send time) for arrivals at a given rate
 * against a local timed SSE server, through the real Netty client. Not a test: it prints figures. Arguments are
 * {@code key=value}: rate (200), seconds (10), warmupSeconds (2), arrival (poisson | constant | gamma:K), seed (1),
 * tokens per response (16), ttftMs (2), itlMs (1), serverThreads (2).
 */
public final class OpenLoopSendLagBenchmark {

    private OpenLoopSendLagBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("argument '" + arg + "' is not key=value");
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        double rate = Double.parseDouble(a.getOrDefault("rate", "200"));
        int seconds = Integer.parseInt(a.getOrDefault("seconds", "10"));
        int warmupSeconds = Integer.parseInt(a.getOrDefault("warmupSeconds", "2"));
        Arrival arrival = arrival(a.getOrDefault("arrival", "poisson"));
        long seed = Long.parseLong(a.getOrDefault("seed", "1"));
        int tokens = Integer.parseInt(a.getOrDefault("tokens", "16"));
        int ttftMs = Integer.parseInt(a.getOrDefault("ttftMs", "2"));
        int itlMs = Integer.parseInt(a.getOrDefault("itlMs", "1"));
        int serverThreads = Integer.parseInt(a.getOrDefault("serverThreads", "2"));

        List<RequestSpec> specs = IntStream.range(0, 64)
                .mapToObj(i -> new RequestSpec(i, "benchmark prompt " + i, 16, tokens)).toList();
        OpenLoopSettings settings = OpenLoopSettings.builder(rate).arrival(arrival).seed(seed)
                .warmup(Warmup.duration(Duration.ofSeconds(warmupSeconds))).duration(Duration.ofSeconds(seconds))
                .timeout(Duration.ofSeconds(warmupSeconds + seconds + 30L)).build();

        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(ttftMs), Duration.ofMillis(itlMs),
                serverThreads);
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "bench-model").maxConnections(512).build())) {
            System.out.printf(Locale.ROOT, "open-loop send lag: %s req/s %s, %d s measured after %d s warmup, "
                            + "seed %d; server: %d tokens, TTFT %d ms, ITL %d ms; client transport %s; %d CPUs; %s%n",
                    fmt(rate), arrival, seconds, warmupSeconds, seed, tokens, ttftMs, itlMs, client.transportName(),
                    Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"));
            Histogram sendCost = new Histogram(3);
            LlmClient timed = new LlmClient() { // measures what the pacer pays per send
                @Override
                public RequestHandle send(RequestSpec spec) {
                    long t0 = System.nanoTime();
                    RequestHandle h = client.send(spec);
                    sendCost.recordValue(System.nanoTime() - t0);
                    return h;
                }

                @Override
                public void close() {
                }
            };
            OpenLoopResult result = new OpenLoopRunner(timed, text -> -1).run(specs, settings);
            OpenLoopSummary s = result.summary();
            long failed = result.records().stream().filter(r -> !r.succeeded()).count();
            System.out.printf(Locale.ROOT, "requests: %d measured (%d warmup), %d failed, %d not sent, "
                            + "max backlog %d%n", result.records().size(), result.warmupRecords().size(), failed,
                    s.arrivalsNotSent(), s.maxBacklog());
            System.out.printf(Locale.ROOT, "rate: offered %s, scheduled %.2f, sent %.2f, completed %.2f req/s%n",
                    fmt(s.offeredRequestsPerSecond()), s.scheduledRequestsPerSecond(),
                    s.achievedSendRequestsPerSecond(), s.completedRequestsPerSecond());
            System.out.println("send lag (us):         " + micros(s.sendLag()));
            System.out.println("LlmClient.send (us):   " + micros(LatencyPercentiles.of(sendCost)));
            System.out.println("TTFT from intended:    " + micros(s.ttftFromIntended()));
            System.out.println("TTFT from actual:      " + micros(s.ttftFromActual()));
            System.out.println("E2E from intended:     " + micros(s.e2eFromIntended()));
            double p99Ms = s.sendLag().p99Nanos() / 1e6;
            System.out.printf(Locale.ROOT, "RESULT send-lag p99 = %.3f ms (target <= 1 ms: %s)%n", p99Ms,
                    p99Ms <= 1.0 ? "met" : "NOT met");
            if (failed > 0) {
                RequestRecord first = result.records().stream().filter(r -> !r.succeeded()).findFirst().orElseThrow();
                System.out.println("first failure: " + first.failure());
            }
        }
    }

    private static Arrival arrival(String s) {
        if (s.equals("poisson")) return Arrival.poisson();
        if (s.equals("constant")) return Arrival.constant();
        if (s.startsWith("gamma:")) return Arrival.gamma(Double.parseDouble(s.substring(6)));
        throw new IllegalArgumentException("arrival '" + s + "': use poisson, constant or gamma:K");
    }

    private static String micros(LatencyPercentiles p) {
        return String.format(Locale.ROOT, "n=%d p50=%.1f p90=%.1f p99=%.1f p99.9=%.1f max=%.1f", p.count(),
                p.p50Nanos() / 1e3, p.p90Nanos() / 1e3, p.p99Nanos() / 1e3, p.p999Nanos() / 1e3, p.maxNanos() / 1e3);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
