package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.FreshRequests;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.RequestSpec;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * One run to spread over the workers: the whole load as on one machine, which the coordinator splits.
 *
 * @param client      how to reach the endpoint (connections are re-capped per worker)
 * @param specs       the workload, in order; each request goes to exactly one worker (a {@link FreshRequests}:
 *                    each of its batches is dealt out between the workers as its first)
 * @param concurrency closed loop: the total concurrency; ignored with {@code openLoop}
 * @param timeout     closed loop: the run's limit, as on one machine
 * @param openLoop    the whole open loop, or null for a closed loop
 * @param startLead   how far ahead the shared start instant is fixed once every worker has set its share up (plus
 *                    twice the longest clock-probe round trip): time to tell the workers the instant and for each
 *                    to hand its share to its runner ({@link LoadWorker#RUNNER_SET_UP_NANOS})
 * @param warmup      closed loop: the warmup of the whole run (split between the workers); an open loop's is in its
 *                    settings
 * @param continuous  closed loop: send until the timeout, each worker cycling through its part of the workload (a
 *                    harness fork), instead of each request once
 */
public record DistributedPlan(ClientSpec client, List<RequestSpec> specs, int concurrency, Duration timeout,
                              OpenLoopSettings openLoop, Duration startLead, Warmup warmup, boolean continuous) {
    /** The set-up hand-over's 50 ms and as much again for the instant to reach a worker of a busy machine. */
    public static final Duration DEFAULT_START_LEAD = Duration.ofMillis(200);

    public DistributedPlan {
        Objects.requireNonNull(client, "client");
        // fresh prompts stay an endless sequence (immutable), dealt out batch by batch
        specs = specs instanceof FreshRequests ? specs : List.copyOf(specs);
        if (specs.isEmpty()) throw new IllegalArgumentException("the workload is empty");
        if (openLoop == null) Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(startLead, "startLead");
        warmup = openLoop != null ? openLoop.warmup() : warmup == null ? Warmup.NONE : warmup;
        if (continuous && openLoop != null) throw new IllegalArgumentException("only a closed loop is continuous");
    }

    public static DistributedPlan closedLoop(ClientSpec client, List<RequestSpec> specs, int concurrency,
                                             Duration timeout) {
        return closedLoop(client, specs, concurrency, timeout, Warmup.NONE);
    }

    public static DistributedPlan closedLoop(ClientSpec client, List<RequestSpec> specs, int concurrency,
                                             Duration timeout, Warmup warmup) {
        return new DistributedPlan(client, specs, concurrency, timeout, null, DEFAULT_START_LEAD, warmup, false);
    }

    /** A closed loop that keeps {@code concurrency} requests in flight for {@code duration}, then cancels the rest. */
    public static DistributedPlan continuousClosedLoop(ClientSpec client, List<RequestSpec> specs, int concurrency,
                                                       Duration duration) {
        return new DistributedPlan(client, specs, concurrency, duration, null, DEFAULT_START_LEAD, Warmup.NONE, true);
    }

    public static DistributedPlan openLoop(ClientSpec client, List<RequestSpec> specs, OpenLoopSettings settings) {
        return new DistributedPlan(client, specs, 0, settings.timeout(), settings, DEFAULT_START_LEAD, null,
                false);
    }

    /** The run's limit: the closed loop's timeout or the open loop's. */
    Duration runTimeout() {
        return openLoop == null ? timeout : openLoop.timeout();
    }
}
