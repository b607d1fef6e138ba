package io.llmperf4j.report.metrics;

import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.ServerGone;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.DoubleConsumer;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * llmperf4j's metrics of one request (see {@code bench-report/METRICS.md}). A value that is undefined for the
 * request is absent (an empty optional, an empty array), never 0.
 *
 * <ul>
 *   <li>{@code ttftNanos}: send to the first event with non-empty content; absent when none arrived.</li>
 *   <li>{@code e2eNanos}: send to the end of the response, or to the failure.</li>
 *   <li>{@code tpotNanos}: {@code (e2e − ttft) / (n − 1)} with n = {@code outputTokens}; successful requests
 *       with content and n ≥ 2 only, whose end came after the decode start: a response that arrived whole (not
 *       streamed, TTFT = E2E) has no TPOT, as it has no ITL. When n is the server's count and reasoning came first,
 *       n includes the reasoning tokens, so the decode phase starts at the first reasoning token instead of TTFT.</li>
 *   <li>{@code timeToFirstReasoningNanos}: send to the first event with non-empty reasoning text; absent when none
 *       arrived. Reasoning never sets TTFT.</li>
 *   <li>{@code itlNanos}: gaps between consecutive content events (one per gap, {@code events − 1} of them).</li>
 *   <li>{@code itlPerTokenNanos}: per-token ITL (see {@link #perTokenItl(long[], int[])}) over the tokens per
 *       event from n's own source ({@link io.llmperf4j.model.EventTokenCounts}: the server's n spread over the
 *       events when n is the server's, else the client's count); absent (empty) when the events' tokens were not
 *       counted.</li>
 *   <li>{@code outputTokensPerSecond}: {@code n / e2e seconds}; successful requests with a known n only.</li>
 *   <li>{@code outputTokens}: by {@code outputTokenSource}: server usage or the client count without its
 *       special tokens, per {@link TokenCounting}.</li>
 * </ul>
 *
 * @param promptIndex           the workload index sent
 * @param clientRequestId       the {@code X-Request-Id} sent
 * @param startEpochMicros      wall-clock time of the send
 * @param failureKind           null when the request succeeded
 * @param failureCode           the failure's code, null when the request succeeded
 * @param finishReason          the last non-null {@code finish_reason}, or null
 * @param maxTokens             the {@code max_tokens} sent
 * @param ttftNanos             see above
 * @param timeToFirstReasoningNanos see above
 * @param e2eNanos              see above
 * @param tpotNanos             see above
 * @param contentEventGaps      the ITL of both kinds above, computed when asked from the record's events
 * @param contentEvents         events that carried non-empty content
 * @param outputTokens          n, by {@code outputTokenSource}; absent when no count exists
 * @param outputTokenSource     where n came from
 * @param clientOutputTokens    the client tokenizer's count minus its special tokens, when counted
 * @param serverOutputTokens    {@code usage.completion_tokens}, when sent
 * @param inputTokens           input tokens by {@code inputTokenSource}
 * @param inputTokenSource      {@link TokenSource#SERVER_USAGE} ({@code usage.prompt_tokens}) or
 *                              {@link TokenSource#CLIENT_TOKENIZER} (the workload's reported count)
 * @param outputTokensPerSecond see above
 * @param phases                where the request's time went ({@link RequestPhaseTimes}); unknown phases absent
 * @param responseHeadersNanos  send to the response's status line and headers ({@link
 *                              io.llmperf4j.model.RequestPhases#responseHeadersNanos()}); absent when none came or
 *                              they were not measured. The server had begun answering: see {@link #failureCauses}
 */
public record RequestMetrics(
        int promptIndex,
        String clientRequestId,
        long startEpochMicros,
        FailureKind failureKind,
        Integer failureCode,
        String finishReason,
        int maxTokens,
        OptionalLong ttftNanos,
        OptionalLong timeToFirstReasoningNanos,
        long e2eNanos,
        OptionalDouble tpotNanos,
        ContentEventGaps contentEventGaps,
        int contentEvents,
        OptionalInt outputTokens,
        TokenSource outputTokenSource,
        OptionalInt clientOutputTokens,
        OptionalInt serverOutputTokens,
        int inputTokens,
        TokenSource inputTokenSource,
        OptionalDouble outputTokensPerSecond,
        RequestPhaseTimes phases,
        OptionalLong responseHeadersNanos) {

    private static final double NANOS_PER_SECOND = 1e9;

    public RequestMetrics {
        Objects.requireNonNull(clientRequestId, "clientRequestId");
        Objects.requireNonNull(ttftNanos, "ttftNanos");
        Objects.requireNonNull(timeToFirstReasoningNanos, "timeToFirstReasoningNanos");
        Objects.requireNonNull(tpotNanos, "tpotNanos");
        if (contentEventGaps == null) contentEventGaps = ContentEventGaps.NONE;
        Objects.requireNonNull(outputTokens, "outputTokens");
        Objects.requireNonNull(outputTokenSource, "outputTokenSource");
        Objects.requireNonNull(clientOutputTokens, "clientOutputTokens");
        Objects.requireNonNull(serverOutputTokens, "serverOutputTokens");
        Objects.requireNonNull(inputTokenSource, "inputTokenSource");
        Objects.requireNonNull(outputTokensPerSecond, "outputTokensPerSecond");
        Objects.requireNonNull(phases, "phases");
        Objects.requireNonNull(responseHeadersNanos, "responseHeadersNanos");
        if ((failureKind == null) != (failureCode == null)) {
            throw new IllegalArgumentException("failureKind and failureCode must both be set or both be null");
        }
    }

    /**
     * The cause of each of a run's {@code requests}, in order, null for a success: {@link FailureCause#of(List)} for
     * requests read back from a run's files, by the same rule ({@link ServerGone#causes}: a refused connection after
     * the server's first answer, its response headers included, is the server going away).
     */
    public static List<FailureCause> failureCauses(List<RequestMetrics> requests) {
        return failureCauses(requests, null);
    }

    /** As {@link #failureCauses(List)}, with a sweep's earlier levels' answer ({@code earlier}; null for none). */
    public static List<FailureCause> failureCauses(List<RequestMetrics> requests, ServerGone.Earlier earlier) {
        return ServerGone.causes(serverGoneView(requests), earlier);
    }

    /**
     * The server going away in a run's {@code requests} ({@link ServerGone#read}, the reading the page and the
     * sweep's verdict share); empty when no failure points at it.
     */
    public static Optional<ServerGone> serverGone(List<RequestMetrics> requests) {
        return ServerGone.read(serverGoneView(requests));
    }

    /** This request as {@link ServerGone} reads it. */
    public ServerGone.Request serverGoneRequest() {
        return new ServerGone.Request(succeeded(), failureKind, failureCode, startEpochMicros, e2eNanos,
                ttftNanos.orElse(-1), responseHeadersNanos.orElse(-1), timeToFirstReasoningNanos.orElse(-1));
    }

    private static List<ServerGone.Request> serverGoneView(List<RequestMetrics> requests) {
        List<ServerGone.Request> view = new ArrayList<>(requests.size());
        for (RequestMetrics r : requests) view.add(r.serverGoneRequest());
        return view;
    }

    /** The metrics of {@code record}, counting tokens as {@code counting} says. */
    public static RequestMetrics from(RequestRecord record, TokenCounting counting) {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(counting, "counting");
        boolean succeeded = record.succeeded();
        OptionalLong ttft = record.ttftNanos() >= 0 ? OptionalLong.of(record.ttftNanos()) : OptionalLong.empty();
        OptionalLong ttfrt = record.firstReasoningNanos() >= 0 ? OptionalLong.of(record.firstReasoningNanos())
                : OptionalLong.empty();
        long e2e = record.e2eNanos();

        long[] events = record.contentEventNanos();
        OutputTokenPolicy policy = counting.policy();
        // the record's own arrays, read when the gaps are asked for; tokens per event from n's own source
        ContentEventGaps gaps = ContentEventGaps.of(events, policy.eventTokens(record));

        OptionalInt client = policy.clientOutputTokens(record);
        OptionalInt server = OutputTokenPolicy.serverOutputTokens(record);
        OptionalInt n = policy.outputTokens(record);
        TokenSource source = switch (policy.source(record)) {
            case SERVER_USAGE -> TokenSource.SERVER_USAGE;
            case CLIENT_TOKENIZER -> TokenSource.CLIENT_TOKENIZER;
            case NONE -> TokenSource.NONE;
        };

        OptionalDouble tpot = policy.tpotNanos(record); // the one definition, the iterations' too
        OptionalDouble tokensPerSecond = succeeded && n.isPresent() && e2e > 0
                ? OptionalDouble.of(n.getAsInt() / (e2e / NANOS_PER_SECOND))
                : OptionalDouble.empty();

        Integer usagePrompt = record.usagePromptTokens();
        boolean serverInput = usagePrompt != null && usagePrompt >= 0
                && (counting.preferServerUsage() || record.numberInputTokens() < 0);
        int inputTokens = serverInput ? usagePrompt : Math.max(0, record.numberInputTokens());
        TokenSource inputSource = serverInput ? TokenSource.SERVER_USAGE : TokenSource.CLIENT_TOKENIZER;

        return new RequestMetrics(record.promptIndex(), record.clientRequestId(), record.startEpochMicros(),
                succeeded ? null : record.failure().kind(), succeeded ? null : record.failure().code(),
                record.finishReason(), record.maxTokens(), ttft, ttfrt, e2e, tpot, gaps, events.length, n,
                source, client, server, inputTokens, inputSource, tokensPerSecond, RequestPhaseTimes.of(record),
                record.phases().responseHeadersNanos() >= 0 ? OptionalLong.of(record.phases().responseHeadersNanos())
                        : OptionalLong.empty());
    }

    /**
     * Per-token ITL of one request: every content event that completed k ≥ 1 tokens, after the first such event,
     * contributes k samples of {@code gap / k}, the gap running from the previous event that completed a token (so
     * the gap of an event that completed none carries over to the next). The first such event's tokens arrived
     * with the first token and give no sample. A request whose events carry 1 token each gets its event gaps.
     *
     * @param eventNanos  content event arrival offsets
     * @param eventTokens tokens completed in each event, parallel to {@code eventNanos}
     */
    public static double[] perTokenItl(long[] eventNanos, int[] eventTokens) {
        if (eventTokens.length != eventNanos.length) {
            throw new IllegalArgumentException(eventTokens.length + " token counts for " + eventNanos.length
                    + " events");
        }
        return ContentEventGaps.of(eventNanos, eventTokens).perToken();
    }

    /** True when the request succeeded; only successful requests enter the distributions. */
    public boolean succeeded() {
        return failureKind == null;
    }

    /** The inter-event gaps, in arrival order, in a new array. */
    public long[] itlNanos() {
        return contentEventGaps.gaps();
    }

    /** How many inter-event gaps there are (without computing them). */
    public int itlCount() {
        return contentEventGaps.count();
    }

    /** The i-th inter-event gap. */
    public long itlNanos(int i) {
        return contentEventGaps.gap(i);
    }

    /** The per-token ITL samples, in arrival order, in a new array. */
    public double[] itlPerTokenNanos() {
        return contentEventGaps.perToken();
    }

    /** How many per-token ITL samples there are (without computing them). */
    public int itlPerTokenCount() {
        return contentEventGaps.perTokenCount();
    }

    /** Hands every per-token ITL sample to {@code sink}, in arrival order, without an array. */
    public void forEachItlPerTokenNanos(DoubleConsumer sink) {
        contentEventGaps.forEachPerToken(sink);
    }
}
