package io.llmperf4j.engine;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.harness.HarnessResult;
import io.llmperf4j.engine.harness.HarnessRunner;
import io.llmperf4j.engine.harness.HarnessSettings;
import io.llmperf4j.engine.harness.IterationResult;
import io.llmperf4j.engine.load.LevelSummary;
import io.llmperf4j.engine.load.LevelWorkloads;
import io.llmperf4j.engine.load.LoadProfile;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.OutputTokens;
import io.llmperf4j.engine.load.SaturationRules;
import io.llmperf4j.engine.load.SaturationVerdict;
import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.engine.load.Sweep;
import io.llmperf4j.engine.load.SweepLevelResult;
import io.llmperf4j.engine.load.SweepListener;
import io.llmperf4j.engine.load.SweepPlan;
import io.llmperf4j.engine.load.SweepResult;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * An experiment: a workload, a load profile, optional warmup or JMH-style harness, against an endpoint.
 *
 * <pre>{@code
 * BenchmarkResult result = Benchmark.builder()
 *         .name("t3-main-scenario")
 *         .endpoint(ClientConfig.builder(EndpointUrls.chatCompletions("http://localhost:8000/v1"), "my-model").build())
 *         .workload(specs)
 *         .load(LoadProfile.concurrencySweep(List.of(1, 5, 10, 20, 50)).withRequestsPerLevel(50))
 *         .warmup(Warmup.requests(5))
 *         .tokenCounter(tokenizer)
 *         .build()
 *         .run();
 * result.verdict().describe("concurrency").forEach(System.out::println);
 * }</pre>
 *
 * <p>Every profile runs as levels (a single closed or open loop is one level). Without a harness, one client serves
 * every level and each level is one run with the profile's stop conditions. With a {@link Builder#harness harness}
 * each level is a harness run ({@link HarnessRunner}): a fresh client per fork, the profile's stop conditions
 * replaced by the iteration windows, and its results in JMH's formats ({@link BenchmarkResult#jmhText()},
 * {@link BenchmarkResult#jmhJson()}).
 *
 * <p>{@link #stop()}: the first call during a level aborts that level (kept, marked aborted) and the benchmark goes
 * on with the next; a second call during the same level, or one between levels, ends the benchmark.
 * {@link #stopAll()} ends it at once. One {@link #run()} at a time.
 */
public final class Benchmark {

    /** The name when none is given; also JMH's "benchmark". */
    public static final String DEFAULT_NAME = "chat.completions";
    /** Leaves {@link RequestRecord#outputTokens()} at -1 (not counted): throughput then uses server usage. */
    public static final TokenCounter NO_TOKEN_COUNTER = text -> -1;

    private final String name;
    private final Supplier<? extends LlmClient> clients;
    private final List<RequestSpec> workload;
    private final LevelWorkloads workloads;
    private final LoadProfile profile;
    private final Warmup warmup;
    private final HarnessSettings harness;
    private final TokenCounter tokenCounter;
    private final ToIntFunction<RequestRecord> outputTokens;
    /** The policy behind {@link #outputTokens} when one was given (the iterations and sweep levels count by it). */
    private final OutputTokenPolicy outputTokenPolicy;
    private final SaturationRules rules;
    private final Map<String, String> params;
    private final BenchmarkListener listener;

    private final Object lock = new Object();
    private Sweep currentSweep;           // guarded by lock
    private HarnessRunner currentHarness; // guarded by lock
    private boolean levelStopRequested;   // guarded by lock
    private boolean allStopRequested;     // guarded by lock
    private boolean running;              // guarded by lock

    private Benchmark(Builder b) {
        this.name = b.name;
        this.clients = b.clients;
        this.workload = b.workload;
        this.workloads = b.workloads == null ? LevelWorkloads.same(b.workload) : b.workloads;
        this.profile = b.profile;
        this.warmup = b.warmup;
        this.harness = b.harness;
        this.tokenCounter = b.tokenCounter;
        this.outputTokens = b.outputTokens;
        this.outputTokenPolicy = b.outputTokenPolicy;
        this.rules = b.rules;
        this.params = Map.copyOf(b.params);
        this.listener = b.listener;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The levels this benchmark runs, in order. */
    public List<LoadSettings> levels() {
        return profile.levels(warmup);
    }

    /**
     * Runs every level on the calling thread.
     *
     * @throws IllegalStateException when this benchmark is already running
     */
    public BenchmarkResult run() {
        synchronized (lock) {
            if (running) throw new IllegalStateException("the benchmark is already running");
            running = true;
        }
        try {
            return harness == null ? runLevels() : runHarnessLevels();
        } finally {
            synchronized (lock) {
                running = false;
                currentSweep = null;
                currentHarness = null;
                allStopRequested = false;
                levelStopRequested = false;
            }
        }
    }

    /** First call during a level: abort that level and go on; again, or between levels: end the benchmark. */
    public void stop() {
        synchronized (lock) {
            if (currentSweep != null) {
                currentSweep.stop();
            } else if (currentHarness != null && !levelStopRequested) {
                levelStopRequested = true;
                currentHarness.stop();
            } else {
                stopAllLocked();
            }
        }
    }

    /** Ends the benchmark: the current level is aborted and no other starts. Any thread. */
    public void stopAll() {
        synchronized (lock) {
            stopAllLocked();
        }
    }

    private void stopAllLocked() {
        allStopRequested = true;
        if (currentSweep != null) currentSweep.stopAll();
        if (currentHarness != null) currentHarness.stop();
        lock.notifyAll();
    }

    private BenchmarkResult runLevels() {
        SweepPlan plan = new SweepPlan(levels(), profile.pause(), rules);
        SweepResult sweepResult;
        try (LlmClient client = clients.get()) {
            Sweep sweep = outputTokenPolicy != null ? new Sweep(client, tokenCounter, outputTokenPolicy)
                    : new Sweep(client, tokenCounter, outputTokens);
            synchronized (lock) {
                currentSweep = sweep;
                if (allStopRequested) sweep.stopAll();
            }
            sweepResult = sweep.run(workloads, plan, new SweepListener() {
                @Override
                public void onLevelStart(int index, LoadSettings level) {
                    listener.onLevelStart(index, level);
                }

                @Override
                public void onLevelEnd(SweepLevelResult level) {
                    listener.onLevelEnd(level);
                    listener.onLevelOutcome(outcome(level));
                }

                @Override
                public void onScheduledRecord(ScheduledRecord record) {
                    listener.onScheduledRecord(record);
                }

                @Override
                public void onMeasuredWireEnd(long nanoTime) {
                    listener.onMeasuredWireEnd(nanoTime);
                }

                @Override
                public void onMeasureStart(long nanoTime) {
                    listener.onMeasureStart(nanoTime);
                }

                @Override
                public void onSendingClosed(long nanoTime) {
                    listener.onSendingClosed(nanoTime);
                }

                @Override
                public void onScheduleCut(int arrivalsNotSent, boolean timedOut) {
                    listener.onScheduleCut(arrivalsNotSent, timedOut);
                }
            });
        }
        List<LevelOutcome> outcomes = sweepResult.levels().stream().map(Benchmark::outcome).toList();
        return new BenchmarkResult(name, profile, outcomes, sweepResult.verdict(), sweepResult.stopped());
    }

    private static LevelOutcome outcome(SweepLevelResult l) {
        return new LevelOutcome(l.index(), l.settings(), l.summary(), l.aborted(), Optional.of(l.result()),
                Optional.empty());
    }

    private BenchmarkResult runHarnessLevels() {
        List<LoadSettings> levels = levels();
        List<LevelOutcome> outcomes = new ArrayList<>();
        boolean stopped = false;
        for (int i = 0; i < levels.size(); i++) {
            if (i > 0 && !pause(profile.pause())) {
                stopped = true;
                break;
            }
            HarnessRunner runner = outputTokenPolicy != null
                    ? new HarnessRunner(clients, tokenCounter, outputTokenPolicy)
                    : new HarnessRunner(clients, tokenCounter, outputTokens);
            synchronized (lock) {
                if (allStopRequested) {
                    stopped = true;
                    break;
                }
                currentHarness = runner;
                levelStopRequested = false;
            }
            LoadSettings level = levels.get(i);
            listener.onLevelStart(i, level);
            HarnessResult h;
            try {
                int levelIndex = i;
                h = runner.run(name, params, fork -> workloads.forLevel(levelIndex, fork), level, harness, listener);
            } finally {
                synchronized (lock) {
                    currentHarness = null;
                }
            }
            if (Thread.currentThread().isInterrupted()) {
                synchronized (lock) {
                    allStopRequested = true;
                }
            }
            LevelOutcome outcome = new LevelOutcome(i, level, summaryOf(h), h.aborted(), Optional.empty(),
                    Optional.of(h));
            outcomes.add(outcome);
            listener.onLevelOutcome(outcome);
        }
        synchronized (lock) {
            stopped |= allStopRequested;
        }
        // an aborted level (a signal) is not the server's doing: not judged
        SaturationVerdict verdict = SaturationVerdict.evaluate(
                outcomes.stream().map(LevelOutcome::summary).toList(),
                outcomes.stream().map(LevelOutcome::aborted).toList(), rules, profile.levelName());
        return new BenchmarkResult(name, profile, outcomes, verdict, stopped);
    }

    /** A harness level in the sweep table's figures: its measurement iterations, all forks pooled. */
    public static LevelSummary summaryOf(HarnessResult h) {
        List<IterationResult> its = h.measurementIterations();
        int successes = its.stream().mapToInt(IterationResult::requestsCompleted).sum();
        int failures = its.stream().mapToInt(IterationResult::requestsFailed).sum();
        double[] ttft = its.stream().flatMapToDouble(i -> Arrays.stream(i.ttftMillis())).toArray();
        double[] e2e = its.stream().flatMapToDouble(i -> Arrays.stream(i.e2eMillis())).toArray();
        // a level whose every request failed has no score; its row says 0 tok/s, as a plain level's does
        boolean none = h.everyRequestFailed();
        return new LevelSummary(h.load().level(), successes, successes + failures, none ? 0 : h.primary().score(),
                none ? 0 : h.requestsPerSecond().score(), LevelSummary.percentile(ttft, 50), LevelSummary.percentile(ttft, 90),
                LevelSummary.percentile(e2e, 50), LevelSummary.percentile(e2e, 90));
    }

    private boolean pause(Duration pause) {
        long deadline = System.nanoTime() + pause.toNanos();
        synchronized (lock) {
            while (!allStopRequested) {
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) return true;
                try {
                    TimeUnit.NANOSECONDS.timedWait(lock, remaining);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    allStopRequested = true;
                }
            }
            return false;
        }
    }

    /** Collects a benchmark; {@link #build()} validates it. */
    public static final class Builder {
        private String name = DEFAULT_NAME;
        private Supplier<? extends LlmClient> clients;
        private List<RequestSpec> workload;
        private LevelWorkloads workloads;
        private LoadProfile profile;
        private Warmup warmup = Warmup.NONE;
        private HarnessSettings harness;
        private TokenCounter tokenCounter = NO_TOKEN_COUNTER;
        private ToIntFunction<RequestRecord> outputTokens = OutputTokens.SERVER_USAGE_ELSE_CLIENT;
        private OutputTokenPolicy outputTokenPolicy;
        private SaturationRules rules = SaturationRules.DEFAULT;
        private final Map<String, String> params = new LinkedHashMap<>();
        private BenchmarkListener listener = BenchmarkListener.NONE;

        private Builder() {
        }

        /** The name in reports (JMH's "benchmark"); default {@value #DEFAULT_NAME}. */
        public Builder name(String n) {
            this.name = Objects.requireNonNull(n, "name");
            return this;
        }

        /** A {@link NettyLlmClient} with this configuration (a new one per harness fork). */
        public Builder endpoint(ClientConfig config) {
            Objects.requireNonNull(config, "config");
            this.clients = () -> new NettyLlmClient(config);
            return this;
        }

        /** Clients from a supplier: one for a run or sweep, one per fork with a harness. Each is closed after use. */
        public Builder client(Supplier<? extends LlmClient> supplier) {
            this.clients = Objects.requireNonNull(supplier, "supplier");
            return this;
        }

        /** The prepared requests; levels cycle through them. */
        public Builder workload(List<RequestSpec> specs) {
            this.workload = specs instanceof PacedWorkload ? specs : List.copyOf(specs); // keeps its pacing
            return this;
        }

        /**
         * Each level's (and each harness fork's) own requests, instead of {@link #workload}'s list for all; each
         * list has that list's size (a level's warmup takes its requests from the level's list).
         */
        public Builder workloads(LevelWorkloads perLevel) {
            this.workloads = Objects.requireNonNull(perLevel, "perLevel");
            return this;
        }

        public Builder load(LoadProfile p) {
            this.profile = Objects.requireNonNull(p, "load");
            return this;
        }

        /** Warmup per level (not with a harness, whose warmup iterations replace it). */
        public Builder warmup(Warmup w) {
            this.warmup = Objects.requireNonNull(w, "warmup");
            return this;
        }

        /** JMH-style iterations and forks at every level. */
        public Builder harness(HarnessSettings h) {
            this.harness = Objects.requireNonNull(h, "harness");
            return this;
        }

        /** Client-side token counting (fills {@code RequestRecord.outputTokens}); default none. */
        public Builder tokenCounter(TokenCounter counter) {
            this.tokenCounter = Objects.requireNonNull(counter, "tokenCounter");
            return this;
        }

        /** The output token count used for tok/s; default {@link OutputTokens#SERVER_USAGE_ELSE_CLIENT}. */
        public Builder outputTokens(ToIntFunction<RequestRecord> count) {
            this.outputTokens = Objects.requireNonNull(count, "outputTokens");
            this.outputTokenPolicy = null;
            return this;
        }

        /**
         * The output token count used for tok/s: {@code policy}'s, the summary's; the iterations spread a request's
         * count over its content events as the tokens each carried ({@link OutputTokenPolicy#eventTokens}).
         */
        public Builder outputTokens(OutputTokenPolicy policy) {
            this.outputTokens = policy::outputTokensOrZero;
            this.outputTokenPolicy = policy;
            return this;
        }

        public Builder saturationRules(SaturationRules r) {
            this.rules = Objects.requireNonNull(r, "saturationRules");
            return this;
        }

        /** An extra JMH param (scenario, ISL/OSL …), echoed into harness results. */
        public Builder param(String key, String value) {
            params.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public Builder listener(BenchmarkListener l) {
            this.listener = Objects.requireNonNull(l, "listener");
            return this;
        }

        /**
         * @throws IllegalArgumentException when something required is missing or the options conflict
         */
        public Benchmark build() {
            if (clients == null) throw new IllegalArgumentException("an endpoint or a client supplier is required");
            if (workload == null || workload.isEmpty()) {
                throw new IllegalArgumentException("a workload of at least one request is required");
            }
            if (profile == null) throw new IllegalArgumentException("a load profile is required");
            if (harness != null && !(warmup instanceof Warmup.None)) {
                throw new IllegalArgumentException("warmup (" + warmup + ") cannot be combined with a harness: its "
                        + "warmup iterations replace it");
            }
            return new Benchmark(this);
        }
    }

}
