package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.protocol.ChunkParser;
import io.llmperf4j.engine.protocol.MalformedChunkException;
import io.llmperf4j.engine.protocol.ParsedChunk;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.RequestTags;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * Turns a request's events and its end into one {@link RequestRecord}. Events are handled on the connection's event
 * loop as they are decoded; the rest (the connect time, the phases, the end) through the request's
 * {@link SerialExecutor} on a worker. The end is handed over after the last event, so it sees them all, and the
 * connect time touches nothing an event does. Metrics follow llmperf §5:
 * <ul>
 *   <li>{@code ttftNanos}: send to the first event with non-empty content; {@code lastContentNanos} and
 *       {@code contentEventNanos} likewise, from the arrival stamps taken on the I/O thread before parsing;
 *       {@code contentEventChars}: the UTF-16 length of each of those events' content;</li>
 *   <li>{@code firstReasoningNanos}: send to the first event with non-empty reasoning text (which is never
 *       content, so it never sets TTFT);</li>
 *   <li>{@code dataEventCount}: data events except {@code [DONE]} and the usage-only chunk, malformed ones
 *       included (llmperf counts before parsing); comment and {@code event:} lines are no data events (METRICS.md
 *       §8);</li>
 *   <li>{@code e2eNanos}: send to the end of the response (a stream's end event, {@code [DONE]}, whatever the body
 *       does after it; else the stream's clean end), or to the error event, or to the failure.</li>
 * </ul>
 * When several things went wrong, the record carries the most telling one: an error object from the server, then a
 * transport or client failure (closed, reset, idle, cancelled, oversize), then malformed events, then an end without
 * {@code [DONE]} after no finish reason ({@link #finishWithoutEndMarker}). An end without {@code [DONE]} after a
 * finish reason is a success, as llmperf's (whose stream simply ends), tagged {@link RequestTags#endMarkerMissing()}
 * so the run can warn. Data received before a failure is always kept.
 */
final class RecordAssembler {

    /** Content events presized without a max_tokens, and the cap for a large one (the arrays still grow past it). */
    private static final int DEFAULT_EVENTS = 32;
    private static final int MAX_PRESIZED_EVENTS = 4096;
    /** About four characters per token in English text. */
    private static final int CHARS_PER_TOKEN_GUESS = 4;

    private final RequestSpec spec;
    private final String clientRequestId;
    /** Set once by {@link #begin}, before the exchange asks for a connection (so before any event). */
    private long startNanos;
    private long startEpochMicros;
    private final ChunkParser parser;
    private final boolean streaming;
    private final Redactor redactor;
    private final Runnable abort;
    private final CompletableFuture<RequestRecord> completion;

    private String serverResponseId;
    /** The response's X-Request-Id header, the record's server id when no event named one. */
    private String headerResponseId;
    /** Time spent opening new connections for this request (several only after a stale keep-alive retry). */
    private long connectNanos = RequestRecord.NEVER;
    private RequestPhases phases = RequestPhases.UNKNOWN;
    private long ttftNanos = RequestRecord.NEVER;
    private long lastContentNanos = RequestRecord.NEVER;
    private long[] contentEventNanos;
    private int[] contentEventChars;
    private int contentEventCount;
    private long firstReasoningNanos = RequestRecord.NEVER;
    private int dataEventCount;
    private int eventIndex;
    private final StringBuilder text;
    private String finishReason;
    private Integer usagePromptTokens;
    /** The server's prefix-cache hits, when it reports them. */
    private Integer usageCachedTokens;
    private Integer usageCompletionTokens;
    private Failure streamError;
    private long streamErrorNanos;
    private String firstMalformed;
    private int malformedCount;
    /** The last event so far was malformed (see {@link #finishAfterCutEvent}). */
    private boolean lastEventMalformed;
    /** Set by {@link #chooseFailure}: the stream ended cleanly after a finish reason, without its end marker. */
    private boolean endMarkerMissing;
    /** Stream lines the SSE standard ignores that are no comment ({@link #onIgnoredLine}), and the first of them. */
    private int ignoredLines;
    private String firstIgnoredLine;

    RecordAssembler(RequestSpec spec, String clientRequestId, ChunkParser parser, boolean streaming, Redactor redactor, Runnable abort,
                    CompletableFuture<RequestRecord> completion) {
        this.spec = spec;
        this.clientRequestId = clientRequestId;
        this.parser = parser.forStream(); // this request's events only, in order, on its serial worker
        this.streaming = streaming;
        this.redactor = redactor;
        this.abort = abort;
        this.completion = completion;
        // sized for the expected length up front: no doubling copies on the worker, and no final copy when exact
        int expected = spec.maxTokens() > 0 ? Math.min(spec.maxTokens(), MAX_PRESIZED_EVENTS) : DEFAULT_EVENTS;
        this.contentEventNanos = new long[expected];
        this.contentEventChars = new int[expected];
        this.text = new StringBuilder(expected * CHARS_PER_TOKEN_GUESS);
    }

    /** A new connection was opened for this request in {@code nanos}. */
    void onConnected(long nanos) {
        connectNanos = connectNanos == RequestRecord.NEVER ? nanos : connectNanos + nanos;
    }

    /** The request's clock starts: offsets count from {@code nanos}; the record's start time is {@code epochMicros}. */
    void begin(long nanos, long epochMicros) {
        startNanos = nanos;
        startEpochMicros = epochMicros;
    }

    /** The response's X-Request-Id header, or null (sent just before the end). */
    void onResponseRequestId(String id) {
        headerResponseId = id == null || id.isBlank() ? null : id;
    }

    /** The request's timing phases, as the I/O side stamped them (sent just before the end). */
    void onPhases(RequestPhases timing) {
        phases = timing;
    }

    /** An event whose data are lent: bytes {@code [from, to)} of {@code data}, read here and never kept. */
    void onEvent(String type, byte[] data, int from, int to, long arrivalNanos) {
        if (streamError != null) return; // llmperf stops at the error; what follows is not measured
        eventIndex++;
        ParsedChunk chunk;
        try {
            chunk = parser.parse(type, data, from, to);
        } catch (MalformedChunkException e) {
            dataEventCount++;
            lastEventMalformed = true;
            if (malformedCount++ == 0) {
                firstMalformed = "SSE data event #" + eventIndex + " is malformed (" + e.getMessage() + "): "
                        + FailureMessages.excerpt(Arrays.copyOfRange(data, from, to));
            }
            return; // the stream goes on
        }
        lastEventMalformed = false;
        if (chunk.countsAsDataEvent()) dataEventCount++;
        if (serverResponseId == null) serverResponseId = chunk.responseId();
        if (chunk.error() != null) {
            streamError = new Failure(FailureKind.ERROR_IN_STREAM, chunk.error().code(), chunk.error().message());
            streamErrorNanos = arrivalNanos;
            abort.run();
            return;
        }
        long offsetNanos = arrivalNanos - startNanos;
        if (chunk.hasReasoning() && firstReasoningNanos == RequestRecord.NEVER) firstReasoningNanos = offsetNanos;
        if (chunk.hasContent()) addContent(offsetNanos, chunk.content());
        if (chunk.finishReason() != null) finishReason = chunk.finishReason();
        if (chunk.usagePromptTokens() != null) usagePromptTokens = chunk.usagePromptTokens();
        if (chunk.usageCompletionTokens() != null) usageCompletionTokens = chunk.usageCompletionTokens();
        if (chunk.usageCachedTokens() != null) usageCachedTokens = chunk.usageCachedTokens();
    }

    /**
     * A stream line the SSE standard ignores (no {@code data:}, no known field, no comment), lent as
     * {@code [from, to)} of {@code line}: counted, the first kept as an excerpt, so the run can say what it dropped
     * (a chunk sent without {@code data:} is output missing from the text and its token counts).
     */
    void onIgnoredLine(byte[] line, int from, int to) {
        if (streamError != null) return; // after the error: not measured, as events are not
        if (ignoredLines++ == 0) firstIgnoredLine = FailureMessages.excerpt(Arrays.copyOfRange(line, from, to));
    }

    /**
     * A 200 response that was JSON instead of a stream: an error object in it is ERROR_IN_STREAM, anything else is a
     * client error (usually {@code "stream": false} in the additional sampling parameters).
     */
    void finishWithJsonBody(long endNanos, byte[] body, String contentType) {
        if (!streaming) {
            finishWholeResponse(endNanos, body, contentType);
            return;
        }
        try {
            ParsedChunk chunk = parser.parse(body);
            if (chunk.error() != null) {
                streamError = new Failure(FailureKind.ERROR_IN_STREAM, chunk.error().code(), chunk.error().message());
                streamErrorNanos = endNanos;
            }
        } catch (MalformedChunkException | RuntimeException e) {
            // not an error object: reported below
        }
        String problem = FailureMessages.problem(body); // an RFC 9457 problem sent as plain JSON
        finish(endNanos, new Failure(FailureKind.CLIENT_ERROR, -1, "expected an event stream but got '"
                + contentType + "'" + (problem != null ? ": " + problem
                : " (is \"stream\" overridden in the sampling params? a server that does not stream needs "
                + "--no-stream): " + FailureMessages.excerpt(body))));
    }

    /**
     * The 200 body of a non-streaming API, parsed whole at its end: one data event; its content (if any) is one
     * content event at the end, so TTFT = last content = E2E (a non-streaming request has no first token). An error
     * object is ERROR_IN_STREAM; an RFC 9457 problem the API's parser rejects is a CLIENT_ERROR with its words (no
     * data event, as a stream's); any other body it rejects is MALFORMED_EVENT.
     */
    private void finishWholeResponse(long endNanos, byte[] body, String contentType) {
        ParsedChunk chunk;
        try {
            chunk = parser.parse(null, body);
        } catch (MalformedChunkException | RuntimeException e) {
            String problem = FailureMessages.problem(body); // a gateway's error under a 200
            if (problem != null) {
                finish(endNanos, new Failure(FailureKind.CLIENT_ERROR, -1,
                        FailureMessages.problemInsteadOfResponse(contentType, problem)));
                return;
            }
            eventIndex++;
            dataEventCount++;
            malformedCount++;
            firstMalformed = "the response body is malformed (" + e.getMessage() + "): "
                    + FailureMessages.excerpt(body);
            finish(endNanos, null);
            return;
        }
        eventIndex++;
        dataEventCount++;
        serverResponseId = chunk.responseId();
        if (chunk.error() != null) {
            streamError = new Failure(FailureKind.ERROR_IN_STREAM, chunk.error().code(), chunk.error().message());
            streamErrorNanos = endNanos;
        } else {
            if (chunk.hasReasoning()) firstReasoningNanos = endNanos - startNanos;
            if (chunk.hasContent()) addContent(endNanos - startNanos, chunk.content());
            finishReason = chunk.finishReason();
            usagePromptTokens = chunk.usagePromptTokens();
            usageCompletionTokens = chunk.usageCompletionTokens();
            usageCachedTokens = chunk.usageCachedTokens();
        }
        finish(endNanos, null);
    }

    private void addContent(long offsetNanos, String content) {
        if (ttftNanos == RequestRecord.NEVER) ttftNanos = offsetNanos;
        lastContentNanos = offsetNanos;
        if (contentEventCount == contentEventNanos.length) {
            int grown = Math.max(DEFAULT_EVENTS, contentEventCount * 2);
            contentEventNanos = Arrays.copyOf(contentEventNanos, grown);
            contentEventChars = Arrays.copyOf(contentEventChars, grown);
        }
        contentEventNanos[contentEventCount] = offsetNanos;
        contentEventChars[contentEventCount] = content.length();
        contentEventCount++;
        text.append(content);
    }

    /**
     * The spec's tags plus the server's cached prompt tokens when it reported them (vLLM omits them when 0; the
     * summary reads an absence as 0 once any request of the run reported some).
     */
    private RequestTags tags() {
        RequestTags tags = RequestTags.of(spec.inputs());
        if (usageCachedTokens != null) tags = tags.withCachedTokens(usageCachedTokens);
        if (ignoredLines > 0) tags = tags.withIgnoredStreamLines(ignoredLines, redactor.redact(firstIgnoredLine));
        return endMarkerMissing ? tags.withEndMarkerMissing() : tags;
    }

    /** Builds the record and completes the future; never throws. */
    void finish(long endNanos, Failure ioFailure) {
        complete(endNanos, ioFailure, false);
    }

    /**
     * The stream ended without its end event ({@code [DONE]}): {@code unended} is the failure when no finish reason
     * came; after one it is a success, as llmperf's, tagged {@link RequestTags#endMarkerMissing()}.
     */
    void finishWithoutEndMarker(long endNanos, Failure unended) {
        complete(endNanos, unended, true);
    }

    /**
     * A body that ends with the connection ended inside an event, whose rest was the last event: when it is
     * malformed, the close cut it short, so the record fails with {@code cut} and that rest is not counted as an event
     * (as a cut chunked body's rest is not); when it parsed, the server only left out the last blank line:
     * {@link #finishWithoutEndMarker} with {@code unended}.
     */
    void finishAfterCutEvent(long endNanos, Failure cut, Failure unended) {
        if (!lastEventMalformed || streamError != null) {
            finishWithoutEndMarker(endNanos, unended);
            return;
        }
        dataEventCount--;
        if (--malformedCount == 0) firstMalformed = null;
        finish(endNanos, cut);
    }

    private void complete(long endNanos, Failure ioFailure, boolean endMarkerOnly) {
        RequestRecord record;
        try {
            Failure failure = redact(chooseFailure(ioFailure, endMarkerOnly));
            long e2eNanos = (streamError != null ? streamErrorNanos : endNanos) - startNanos;
            // an error event often comes before any chunk with an id: the header still names the request
            String responseId = serverResponseId != null ? serverResponseId : headerResponseId;
            record = new RequestRecord(spec.index(), clientRequestId, responseId, startEpochMicros, ttftNanos,
                    lastContentNanos, e2eNanos, dataEventCount, exact(contentEventNanos, contentEventCount),
                    text.toString(), spec.numberInputTokens(), spec.maxTokens(), -1, usagePromptTokens,
                    usageCompletionTokens, finishReason, failure, exact(contentEventChars, contentEventCount),
                    null, firstReasoningNanos, connectNanos, null, phases, tags());
        } catch (RuntimeException | Error e) {
            record = new RequestRecord(spec.index(), clientRequestId, null, startEpochMicros, -1, -1,
                    endNanos - startNanos, 0, null, "", spec.numberInputTokens(), spec.maxTokens(), -1, null, null,
                    null, new Failure(FailureKind.CLIENT_ERROR, -1, "could not build the record: " + e))
                    .withTags(RequestTags.of(spec.inputs()));
        }
        completion.complete(record);
    }

    /** The first {@code count} values: the array itself when it is exactly full (the record owns it from now on). */
    private static long[] exact(long[] values, int count) {
        return count == values.length ? values : Arrays.copyOf(values, count);
    }

    private static int[] exact(int[] values, int count) {
        return count == values.length ? values : Arrays.copyOf(values, count);
    }

    /** @param endMarkerOnly {@code ioFailure} is only the missing end event ({@link #finishWithoutEndMarker}) */
    private Failure chooseFailure(Failure ioFailure, boolean endMarkerOnly) {
        if (streamError != null) return streamError;
        if (ioFailure != null && !endMarkerOnly) return ioFailure;
        if (malformedCount > 0) {
            return new Failure(FailureKind.MALFORMED_EVENT, -1, firstMalformed
                    + (malformedCount > 1 ? " (" + malformedCount + " malformed events in all)" : ""));
        }
        if (ioFailure != null && finishReason != null) { // no end event after the finish: llmperf's success
            endMarkerMissing = true;
            return null;
        }
        return ioFailure;
    }

    private Failure redact(Failure failure) {
        if (failure == null) return null;
        String message = redactor.redact(failure.message());
        return message.equals(failure.message()) ? failure : new Failure(failure.kind(), failure.code(), message);
    }
}
