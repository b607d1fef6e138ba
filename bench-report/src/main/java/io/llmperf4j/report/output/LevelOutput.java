package io.llmperf4j.report.output;

import io.llmperf4j.model.BenchmarkRun;
import io.llmperf4j.report.metrics.RunMetrics;
import io.llmperf4j.report.summary.RunEnvironment;
import io.llmperf4j.report.summary.SummaryDocument;

import io.llmperf4j.servermetrics.summary.ServerSideSummary;
import io.llmperf4j.servermetrics.timeline.ServerMetricsTimeline;
import java.util.Map;
import java.util.Objects;

/**
 * What one level's files are written from.
 *
 * @param run         the level's records and settings, as llmperf's model
 * @param metrics     its metrics
 * @param toolVersion this tool's version, echoed into the summary and report
 * @param environment the machine and JVM
 * @param distributed the cluster's workers and clock offsets, or null for a run from one machine
 * @param openLoop    the open loop's schedule and what became of it, or null for a closed loop
 * @param server      the server's own metrics over the measured window, or null when not scraped
 * @param serverTimeline every scrape of the server's metrics during the level, or null when not scraped
 * @param sendLagNanos   a scheduled run's (an open loop's, or sessions') send lag of each measured request, by client request id; empty otherwise
 * @param stoppedBy      "SIGINT" or "SIGTERM" when a signal cut the level short (the summary's run.stopped_by); null
 *                       when it ran to its end
 * @param sessionTurnsNotSent a closed loop of sessions: its sessions' turns never sent (the summary's
 *                       sessions.turns_not_sent); null otherwise
 * @param clientDelayNanos a scheduled run's client delay of each measured request this machine sent (after its send
 *                       stamp, until its last byte was in the socket), by client request id; empty otherwise
 */
public record LevelOutput(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                          SummaryDocument.DistributedJson distributed, OpenLoopFile.Document openLoop,
                          ServerSideSummary server, ServerMetricsTimeline serverTimeline,
                          Map<String, Long> sendLagNanos, String stoppedBy, Integer sessionTurnsNotSent,
                          Map<String, Long> clientDelayNanos) {

    /** A level without the client's delays (a load worker's requests, or a run without a schedule). */
    public LevelOutput(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                       SummaryDocument.DistributedJson distributed, OpenLoopFile.Document openLoop,
                       ServerSideSummary server, ServerMetricsTimeline serverTimeline,
                       Map<String, Long> sendLagNanos, String stoppedBy, Integer sessionTurnsNotSent) {
        this(run, metrics, toolVersion, environment, distributed, openLoop, server, serverTimeline, sendLagNanos,
                stoppedBy, sessionTurnsNotSent, Map.of());
    }

    /** A level without a count of sessions' turns not sent. */
    public LevelOutput(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                       SummaryDocument.DistributedJson distributed, OpenLoopFile.Document openLoop,
                       ServerSideSummary server, ServerMetricsTimeline serverTimeline,
                       Map<String, Long> sendLagNanos, String stoppedBy) {
        this(run, metrics, toolVersion, environment, distributed, openLoop, server, serverTimeline, sendLagNanos,
                stoppedBy, null);
    }

    /** A level without the server's metrics. */
    public LevelOutput(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                       SummaryDocument.DistributedJson distributed, OpenLoopFile.Document openLoop) {
        this(run, metrics, toolVersion, environment, distributed, openLoop, null, null, Map.of(), null);
    }

    /** A level with the server's summary but without its timeline (no server metrics CSV). */
    public LevelOutput(BenchmarkRun run, RunMetrics metrics, String toolVersion, RunEnvironment environment,
                       SummaryDocument.DistributedJson distributed, OpenLoopFile.Document openLoop,
                       ServerSideSummary server) {
        this(run, metrics, toolVersion, environment, distributed, openLoop, server, null, Map.of(), null);
    }

    public LevelOutput {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(toolVersion, "toolVersion");
        Objects.requireNonNull(environment, "environment");
        sendLagNanos = sendLagNanos == null ? Map.of() : Map.copyOf(sendLagNanos);
        clientDelayNanos = clientDelayNanos == null ? Map.of() : Map.copyOf(clientDelayNanos);
    }
}
