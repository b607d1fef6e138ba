package io.llmperf4j.run;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.ClosedLoopSettings.PromptOrder;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopRunner;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.jsonl.RequestJournal;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Warms the client's own code (Netty, SSE decoding, event parsing, and the output token counting) before the
 * measured run, against a private in-process responder ({@link WarmupResponder}), never the endpoint under test,
 * until the JIT compilers have settled, then lets them finish what is queued. Without it the first wave of requests
 * of a fresh JVM carries 100 ms or more of JIT compilation in its TTFT, and the first seconds of the run share the CPU
 * with the compilers: the tool measuring itself. Once per JVM: a sweep's later levels, a second model or a second
 * run of the Java API find the code compiled already, and warming it again would only cost them seconds.
 */
public final class ClientWarmup {
    /**
     * What the client is warmed with: answers sent with no delay arrive as reads of dozens of events each (a fast
     * server, a stream ceiling); answers paced at a fraction of a millisecond arrive one or a few events a read (a
     * real server). The run sees either or both, so both shapes reach the compilers before it, else the per-read
     * methods (HTTP chunk decoding, SSE lines, the chunk parser) are compiled again inside the run. One-token
     * answers take the per-request path (send, re-send, headers, the record) to the compile threshold: per-token
     * code gets there thousands of times sooner, and without them the send path crossed it inside the run (C2
     * compiling the closed loop's re-send, 0.6 s, in a 0.8 s stream ceiling).
     *
     * @param client index into {@link #MODELS}: the client (and so the pace) the shape is sent with
     */
    private record Shape(int waves, int tokens, int client) {
    }

    /** The warm-up's models, which the responder answers unpaced and paced; one client each. */
    private static final List<String> MODELS = List.of("warmup", WarmupResponder.PACED_MODEL);
    private static final List<Shape> ROUND = List.of(
            new Shape(1, 128, 0),
            new Shape(1, 1024, 0),
            new Shape(1, 128, 1),
            new Shape(4, 1, 0));
    /**
     * Line breaks and a quote, as the run's prompts have (llmperf's): escaping them is a path of its own in the
     * request body's JSON encoder, else first taken, and compiled, inside the run.
     */
    private static final String PROMPT = "Warm up the client with lines:\n\n\"like\" the run's\nprompts\n";
    private static final int IN_FLIGHT = 32;
    /**
     * An open loop's wave, once a round when the run is one: {@value #OPEN_WAVE_ARRIVALS} Poisson arrivals at
     * {@value #OPEN_WAVE_RATE} req/s of {@value #OPEN_WAVE_TOKENS}-token answers (about 64 ms, a few in flight). The
     * closed loop re-sends from the I/O threads; an open loop sends from its pacer thread, which parks, spins and
     * hands each request to an event loop, and collects its records on the caller's thread: code no closed wave
     * runs, which C2 otherwise compiled inside the measured window (0.42-0.66 s of CPU at 200 req/s). Gaps of 0.5 ms
     * on average take both the pacer's park and its spin.
     */
    static final int OPEN_WAVE_ARRIVALS = 128;
    private static final double OPEN_WAVE_RATE = 2_000;
    static final int OPEN_WAVE_TOKENS = 16;
    private static final int LENGTH_STEP = 37;
    /** The token benchmark's order ({@link LoadPlan#PROMPT_ORDER}) and the harness's, llmperf's slot stride. */
    private static final PromptOrder[] PROMPT_ORDERS = PromptOrder.values();
    private static final int NEW_CLIENTS_EVERY = 4;
    /** How long a request of the warm-up may take before it is given up. */
    private static final long REQUEST_LIMIT_MILLIS = 8_000;
    /**
     * C2's invocation threshold with the launcher's options (-XX:-TieredCompilation: Tier4InvocationThreshold, 5,000),
     * with room: the per-request path (send, start, the response head, the record) runs once a request, so only a
     * warm-up of more requests than this compiles it. The per-token path gets there thousands of times sooner.
     */
    private static final int PER_REQUEST_COMPILE_THRESHOLD = 6_000;
    /** The compilers count as done after this long with at most 5 % of it compiling; never waited past the bound. */
    private static final long COMPILERS_QUIET_MILLIS = 250;
    private static final AtomicBoolean WARMED = new AtomicBoolean();
    /**
     * For measuring the warm-up itself, never needed by a run: {@code -Dllmperf4j.client-warmup.trace=true} prints
     * one line on stderr when it ends (its requests, wall time and the process's CPU time over it).
     */
    static final String TRACE_PROPERTY = "llmperf4j.client-warmup.trace";

    /**
     * How thorough a warm-up is.
     *
     * @param minRequests        at least this many requests, as many as the compilers keep busy after that
     * @param timeLimitMillis    never past this
     * @param compilersWaitMillis at most this long for the compilers to finish what is queued
     */
    public record Budget(int minRequests, long timeLimitMillis, long compilersWaitMillis) {
        /**
         * Until the compilers settle, past the per-request path's compile threshold: for runs long or heavy enough
         * that compilation inside them would show (a stream ceiling's first second was half C2 compiling after a
         * fixed-size warm-up). A fresh JVM on 2 cores settles after 8.4-8.7 s (9,900-11,200 requests, 3 runs). The
         * earlier bound of 8 s stopped it short (-XX:+PrintCompilation, 3 runs): C2 compiled {@code Exchange.start}
         * in the warm-up's last second in 2 runs and not at all in the third, whose requests then each started in
         * the interpreter, as a short run's do (perf with the JIT's symbol map: 97 % of the samples between a
         * request's start stamp and its write).
         */
        public static final Budget FULL = new Budget(PER_REQUEST_COMPILE_THRESHOLD, 12_000, 2_000);
        /**
         * One round and about a second: the request path compiled before the first TTFT, for runs too short to
         * amortize the full one (llmperf's default of 10 requests; a command pasted from the docs).
         */
        public static final Budget QUICK = new Budget(96, 1_500, 500);

        /**
         * The system property that caps every warm-up of the process at {@link #QUICK}: {@code
         * -Dllmperf4j.client-warmup=quick} (through {@code LLMPERF4J_JAVA_OPTS}), for a caller that runs many short
         * commands whose first requests' TTFT it does not read (the test suite pastes the docs' commands).
         */
        public static final String CAP_PROPERTY = "llmperf4j.client-warmup";

        /** {@code asked}, or {@link #QUICK} when {@link #CAP_PROPERTY} is {@code quick}. */
        public static Budget capped(Budget asked) {
            return "quick".equals(System.getProperty(CAP_PROPERTY)) ? QUICK : asked;
        }

        /** The longest it can take, whole seconds rounded up: its time bound and the wait for the compilers. */
        public long maxSeconds() {
            return (timeLimitMillis + compilersWaitMillis + 999) / 1000;
        }
    }

    /**
     * How a warm-up ended.
     *
     * @param budget   what it was given
     * @param requests the requests it sent
     * @param settled  the compilers settled with at least the budget's requests sent; false when the time bound ended it
     */
    public record Outcome(Budget budget, int requests, boolean settled) {
        /**
         * A line for the user when a full warm-up ran out of time: the run's first requests may then carry JIT
         * compilation, and with fewer than {@link #PER_REQUEST_COMPILE_THRESHOLD} requests each request's start
         * stays interpreted. A quick warm-up stops at its bound by design, so it has none.
         */
        public Optional<String> notice() {
            if (settled || budget != Budget.FULL) return Optional.empty();
            return Optional.of(String.format(Locale.ROOT, "llmperf4j: client warm-up: stopped at its %d s bound after "
                    + "%,d requests, before the JIT compilers had settled on the client's code; the run's first "
                    + "requests may carry compilation. Other processes taking the CPU do this: measure on a quieter "
                    + "machine to trust the client's own share of each latency.", budget.timeLimitMillis() / 1000,
                    requests));
        }
    }

    private ClientWarmup() {
    }

    /** Whether this JVM was warmed already ({@link #run} then returns at once). */
    public static boolean warmed() {
        return WARMED.get();
    }

    /**
     * Warms the client within {@code asked} ({@link Budget#capped}), counting each warm-up answer's tokens with {@code counter} (when not
     * null), as the run will; closed-loop waves only.
     *
     * @return how it ended; empty when this JVM was warmed already or the warm-up could not run
     */
    public static Optional<Outcome> run(TokenCounter counter, Budget asked) {
        return run(counter, asked, false);
    }

    /**
     * As {@link #run(TokenCounter, Budget)}; with {@code openLoop} (an open loop, a rate sweep or a rate search) each
     * round also sends an open loop's wave ({@link #OPEN_WAVE_ARRIVALS}).
     */
    public static Optional<Outcome> run(TokenCounter counter, Budget asked, boolean openLoop) {
        if (!WARMED.compareAndSet(false, true)) return Optional.empty();
        Budget budget = Budget.capped(asked);
        long startNanos = System.nanoTime();
        long startCpuNanos = processCpuNanos();
        List<NettyLlmClient> clients = new ArrayList<>();
        Optional<Outcome> outcome = Optional.empty();
        try (WarmupResponder responder = WarmupResponder.start();
             RequestJournal journal = RequestJournal.discarding()) {
            try {
                outcome = Optional.of(warmUntilSettled(responder, journal, clients, counter, budget, openLoop));
            } finally {
                clients.forEach(NettyLlmClient::close); // before the responder closes their connections
            }
        } catch (Exception e) {
            // a warm-up that cannot run only costs accuracy on the first requests; the real run reports its own errors
        }
        awaitQuietCompilers(budget.compilersWaitMillis());
        if (Boolean.getBoolean(TRACE_PROPERTY)) {
            System.err.printf(Locale.ROOT, "llmperf4j: client warm-up trace: %d requests, settled %s, %.2f s wall, "
                            + "%.2f s process CPU%n", outcome.map(Outcome::requests).orElse(0),
                    outcome.map(Outcome::settled).orElse(false), (System.nanoTime() - startNanos) / 1e9,
                    (processCpuNanos() - startCpuNanos) / 1e9);
        }
        return outcome;
    }

    /** The process's CPU time so far, or 0 where the JVM does not tell it (then the trace's CPU reads 0). */
    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? Math.max(0, os.getProcessCpuTime()) : 0;
    }

    /**
     * Rounds of every {@link #ROUND} shape until the compilers have settled ({@link CompilerSettling}) with at least
     * the budget's requests sent, or its time is up; {@code clients} holds the clients in use, for the caller to
     * close. Stopping at a fixed count left methods for the first second of the run (measured: HTTP chunk decoding,
     * the allocator, the tokenizer compiled inside a 1 s stream ceiling, half of its CPU).
     */
    private static Outcome warmUntilSettled(WarmupResponder responder, RequestJournal journal,
                                            List<NettyLlmClient> clients, TokenCounter counter, Budget budget,
                                            boolean openLoop) {
        long deadline = System.currentTimeMillis() + budget.timeLimitMillis();
        int sent = 0;
        int waves = 0;
        CompilerSettling compilers = new CompilerSettling();
        for (int round = 0; System.currentTimeMillis() < deadline; round++) {
            // a new client every few rounds, as the run's is: its first moments (new I/O threads, a pool
            // connected up front, a key in the headers) are then in the compiled code's profile too, not a
            // surprise that sends the run back to the interpreter
            if (round % NEW_CLIENTS_EVERY == 0) replaceClients(responder, clients);
            for (int i = 0; i < ROUND.size(); i++) {
                Shape shape = ROUND.get(i);
                RequestSpec spec = new RequestSpec(0, PROMPT, 0, tokens(shape, round));
                // both prompt orders: the one the run does not use, else its first send leaves compiled code
                // that never saw it (an unstable_if at the run's start, the send path interpreted after)
                PromptOrder order = PROMPT_ORDERS[(round + i) % PROMPT_ORDERS.length];
                for (int w = 0; w < shape.waves() && System.currentTimeMillis() < deadline; w++) {
                    int wave = waves++;
                    sent += wave(clients.get(shape.client()), spec, order, counter, wave, listener(wave, journal));
                }
            }
            if (openLoop && System.currentTimeMillis() < deadline) {
                int wave = waves++;
                sent += openWave(clients.get(0), counter, wave, listener(wave, journal), deadline);
            }
            sent += sendAlone(responder);
            if (compilers.look() == CompilerSettling.Verdict.SETTLED && sent >= budget.minRequests()) {
                return new Outcome(budget, sent, true);
            }
        }
        return new Outcome(budget, sent, false);
    }

    /**
     * The shape's answer length, longer answers a little longer each round (up to 7 × {@link #LENGTH_STEP} tokens): the
     * journal's generator, which flushes its buffer when a number would not fit, then flushes inside each kind of
     * number of a record, not always at the same place. Its int writer's flush, first taken in the run, was compiled
     * again inside the stream ceiling's half-second window (with the array writers: 40-60 ms of C2).
     */
    private static int tokens(Shape shape, int round) {
        return shape.tokens() == 1 ? 1 : shape.tokens() + LENGTH_STEP * (round % 8);
    }

    /**
     * One request with no end action from a new client with no connection yet, as the run's preflight and a Java API
     * user's {@code send(spec)} make. Else the end of every warm-up exchange ran an action and every request found an
     * idle connection: the compiled code took both for granted, and the preflight's request, just before the run,
     * sent it back to the interpreter. The empty pool did that to {@code Exchange.start} (found with
     * {@code -XX:+LogCompilation}), which then stayed interpreted in any run of fewer than C2's 5,000 requests.
     */
    private static int sendAlone(WarmupResponder responder) {
        try (NettyLlmClient client = newClient(responder, MODELS.get(0))) {
            client.send(new RequestSpec(0, PROMPT, 0, 1)).completion().get(REQUEST_LIMIT_MILLIS, TimeUnit.MILLISECONDS);
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        } catch (ExecutionException | TimeoutException e) {
            return 0; // the record is the client's business; the warm-up only needs the path taken
        }
    }

    /** Closes {@code clients} and puts a new one for each of {@link #MODELS} in their place, connected up front. */
    private static void replaceClients(WarmupResponder responder, List<NettyLlmClient> clients) {
        clients.forEach(NettyLlmClient::close);
        clients.clear();
        for (String model : MODELS) {
            NettyLlmClient client = newClient(responder, model);
            clients.add(client);
            client.preconnect(IN_FLIGHT);
        }
    }

    /**
     * A client of the responder for {@code model}. The paced model's has a whole-request limit, as a run with
     * {@code --request-timeout} has, the other none, as a run without: each request's start arms a timer or not, and
     * the compiled start path has seen both.
     */
    static NettyLlmClient newClient(WarmupResponder responder, String model) {
        ClientConfig.Builder config = ClientConfig.builder(URI.create(responder.baseUrl() + "/chat/completions"), model)
                .apiKey(Secret.of("warmup")).maxConnections(IN_FLIGHT);
        if (model.equals(WarmupResponder.PACED_MODEL)) config.requestTimeout(Duration.ofMillis(REQUEST_LIMIT_MILLIS));
        return new NettyLlmClient(config.build());
    }

    /**
     * {@link #IN_FLIGHT} slots of the run's own closed loop, two requests each, every answer counted and journaled
     * as the run does: the re-sends then go out from the I/O threads inside their reads, the records are counted on
     * the runner's thread, exactly the paths the run takes (a warm-up that sent from its own thread left them to be
     * compiled, and deoptimized, inside the run).
     */
    private static int wave(NettyLlmClient client, RequestSpec spec, PromptOrder order, TokenCounter counter,
                            int number, RecordListener listener) {
        TokenCounter counting = counter == null ? text -> 0 : counter;
        ClosedLoopResult result = new ClosedLoopRunner(client, counting).run(List.of(spec),
                new ClosedLoopSettings(IN_FLIGHT, Duration.ofMillis(REQUEST_LIMIT_MILLIS))
                        .withMaxCompleted(2 * IN_FLIGHT).withPromptOrder(order), listener);
        if (counter != null && !result.records().isEmpty()) {
            // the runner counted every answer already, as the run does; one more text, with two leading spaces, keeps
            // the tokenizer's branches for it in the profile: once a wave is enough for that (every record's twice
            // over was a third of the warm-up's tokenizing, for nothing the run uses)
            String text = " " + result.records().get(0).generatedText();
            counter.tokensPerEvent(text, new int[] {text.length()}); // the run's call (ClientTokenCount)
            // A word no text had before, once a wave: the tokenizer's word-cache miss stays in its profile all along
            // (misses seen only in the first moments, before profiling starts, count for nothing: C2 then compiles
            // the miss as a trap, and the run's first new word sent the tokenizer back to the interpreter, 0.25 s of
            // C2 inside a stream ceiling). One a wave leaves the cache's room to the run's own words.
            String word = " warmup" + Integer.toString(number, 36);
            counter.tokensPerEvent(word, new int[] {word.length()});
        }
        return result.records().size();
    }

    /**
     * {@link #OPEN_WAVE_ARRIVALS} arrivals of the run's own open loop (its pacer, its collector, every answer counted
     * and journaled as the run's are), seeded by the wave's number so the gaps differ from wave to wave; cut off at
     * the warm-up's {@code deadline} ({@link System#currentTimeMillis()}), as a pacer made late would otherwise
     * keep it past its bound.
     */
    static int openWave(NettyLlmClient client, TokenCounter counter, int number, RecordListener listener,
                                long deadline) {
        TokenCounter counting = counter == null ? text -> 0 : counter;
        long limit = Math.max(1, Math.min(REQUEST_LIMIT_MILLIS, deadline - System.currentTimeMillis()));
        OpenLoopSettings settings = OpenLoopSettings.builder(OPEN_WAVE_RATE).seed(number)
                .maxRequests(OPEN_WAVE_ARRIVALS).timeout(Duration.ofMillis(limit)).build();
        OpenLoopResult result = new OpenLoopRunner(client, counting)
                .run(List.of(new RequestSpec(0, PROMPT, 0, OPEN_WAVE_TOKENS)), settings, listener);
        return result.records().size();
    }

    /**
     * The journal's listener, as one of three classes in turn: the runner's call to its listener is then compiled as
     * a call to any class, and the run's own listener (another class) does not send that code back to the
     * interpreter at the run's first record (a class check, then C2 compiling the record path again inside the run).
     */
    private static RecordListener listener(int wave, RequestJournal journal) {
        return switch (wave % 3) {
            case 0 -> journal::append;
            case 1 -> record -> journal.append(record);
            default -> new RecordListener() {
                @Override
                public void onRecord(RequestRecord record) {
                    journal.append(record);
                }
            };
        };
    }

    /** Waits until the JIT compilers have been nearly idle for a moment (bounded), so their work is not in the run. */
    private static void awaitQuietCompilers(long boundMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        long quietSpan = TimeUnit.MILLISECONDS.toNanos(COMPILERS_QUIET_MILLIS);
        try {
            while (System.nanoTime() < deadline) {
                long before = CompilerCpu.nanos();
                Thread.sleep(COMPILERS_QUIET_MILLIS);
                if (CompilerCpu.nanos() - before <= quietSpan / 20) return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
