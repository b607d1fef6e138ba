package io.llmperf4j.model;

import java.util.Objects;

/**
 * Everything measured about one request. Times are nanosecond offsets from {@code System.nanoTime()} at send,
 * taken when the bytes arrived (before JSON parsing); -1 where the moment never happened.
 *
 * @param promptIndex           index of the {@link RequestSpec} sent
 * @param clientRequestId       the {@code X-Request-Id} the client sent
 * @param serverResponseId      the {@code id} of the server's response chunks, or null
 * @param startEpochMicros      wall-clock time of the send, for joining with server logs
 * @param ttftNanos             send to the first event with non-empty content, or -1
 * @param lastContentNanos      send to the last event with non-empty content, or -1
 * @param e2eNanos              send to the end of the response (or to the failure)
 * @param dataEventCount        SSE data events received, {@code [DONE]} excluded (llmperf's tokens_received)
 * @param contentEventNanos     offsets of every event that carried non-empty content, in arrival order;
 *                              owned by the record, never mutate
 * @param generatedText         concatenated content
 * @param numberInputTokens     the input token count of the request's prompt (see {@link RequestSpec})
 * @param maxTokens             the {@code max_tokens} sent, or {@link RequestSpec#NO_MAX_TOKENS} when none was
 * @param outputTokens          output tokens by the client tokenizer as llmperf counts them (BOS included),
 *                              or -1 while not yet counted
 * @param usagePromptTokens     {@code usage.prompt_tokens} from the server, or null when not sent
 * @param usageCompletionTokens {@code usage.completion_tokens} from the server, or null when not sent
 * @param finishReason          the last non-null {@code finish_reason}, or null
 * @param failure               null when the request succeeded
 * @param contentEventChars     UTF-16 length of the content each content event carried, parallel to
 *                              {@code contentEventNanos}; empty where not recorded. Owned by the record
 * @param contentEventTokens    client-tokenizer tokens whose text ends in each content event, parallel to
 *                              {@code contentEventNanos} (so a chunk of 4 tokens counts 4); added special tokens
 *                              (the BOS) count in none; empty until counted (see {@link ClientTokenCount})
 * @param firstReasoningNanos   send to the first event with non-empty reasoning content
 *                              ({@code reasoning_content}/{@code reasoning}), or -1
 * @param connectNanos          time this request spent opening a new connection (TCP and TLS), or -1 when it
 *                              reused a pooled one; included in TTFT as llmperf's is
 * @param workerId              the load worker that sent the request in a distributed run, or null
 * @param phases                where the time before the content went (connection, request written, headers);
 *                              {@link RequestPhases#UNKNOWN} when not measured
 * @param tags                  session, turn, cached tokens and images; {@link RequestTags#NONE} when none apply
 */
public record RequestRecord(
        int promptIndex,
        String clientRequestId,
        String serverResponseId,
        long startEpochMicros,
        long ttftNanos,
        long lastContentNanos,
        long e2eNanos,
        int dataEventCount,
        long[] contentEventNanos,
        String generatedText,
        int numberInputTokens,
        int maxTokens,
        int outputTokens,
        Integer usagePromptTokens,
        Integer usageCompletionTokens,
        String finishReason,
        Failure failure,
        int[] contentEventChars,
        int[] contentEventTokens,
        long firstReasoningNanos,
        long connectNanos,
        String workerId,
        RequestPhases phases,
        RequestTags tags) {

    public static final long NEVER = -1L;

    public RequestRecord {
        phases = phases == null ? RequestPhases.UNKNOWN : phases;
        tags = tags == null ? RequestTags.NONE : tags;
        Objects.requireNonNull(clientRequestId, "clientRequestId");
        contentEventNanos = contentEventNanos == null ? new long[0] : contentEventNanos;
        generatedText = generatedText == null ? "" : generatedText;
        contentEventChars = contentEventChars == null ? new int[0] : contentEventChars;
        contentEventTokens = contentEventTokens == null ? new int[0] : contentEventTokens;
    }

    /** A record without session, cached-token or image tags. */
    public RequestRecord(int promptIndex, String clientRequestId, String serverResponseId, long startEpochMicros,
                         long ttftNanos, long lastContentNanos, long e2eNanos, int dataEventCount,
                         long[] contentEventNanos, String generatedText, int numberInputTokens, int maxTokens,
                         int outputTokens, Integer usagePromptTokens, Integer usageCompletionTokens,
                         String finishReason, Failure failure, int[] contentEventChars, int[] contentEventTokens,
                         long firstReasoningNanos, long connectNanos, String workerId, RequestPhases phases) {
        this(promptIndex, clientRequestId, serverResponseId, startEpochMicros, ttftNanos, lastContentNanos, e2eNanos,
                dataEventCount, contentEventNanos, generatedText, numberInputTokens, maxTokens, outputTokens,
                usagePromptTokens, usageCompletionTokens, finishReason, failure, contentEventChars,
                contentEventTokens, firstReasoningNanos, connectNanos, workerId, phases, RequestTags.NONE);
    }

    /** A record without timing phases. */
    public RequestRecord(int promptIndex, String clientRequestId, String serverResponseId, long startEpochMicros,
                         long ttftNanos, long lastContentNanos, long e2eNanos, int dataEventCount,
                         long[] contentEventNanos, String generatedText, int numberInputTokens, int maxTokens,
                         int outputTokens, Integer usagePromptTokens, Integer usageCompletionTokens,
                         String finishReason, Failure failure, int[] contentEventChars, int[] contentEventTokens,
                         long firstReasoningNanos, long connectNanos, String workerId) {
        this(promptIndex, clientRequestId, serverResponseId, startEpochMicros, ttftNanos, lastContentNanos, e2eNanos,
                dataEventCount, contentEventNanos, generatedText, numberInputTokens, maxTokens, outputTokens,
                usagePromptTokens, usageCompletionTokens, finishReason, failure, contentEventChars,
                contentEventTokens, firstReasoningNanos, connectNanos, workerId, RequestPhases.UNKNOWN, RequestTags.NONE);
    }

    /** A record without per-event sizes, reasoning, connect time or worker (as read back from older files). */
    public RequestRecord(int promptIndex, String clientRequestId, String serverResponseId, long startEpochMicros,
                         long ttftNanos, long lastContentNanos, long e2eNanos, int dataEventCount,
                         long[] contentEventNanos, String generatedText, int numberInputTokens, int maxTokens,
                         int outputTokens, Integer usagePromptTokens, Integer usageCompletionTokens,
                         String finishReason, Failure failure) {
        this(promptIndex, clientRequestId, serverResponseId, startEpochMicros, ttftNanos, lastContentNanos, e2eNanos,
                dataEventCount, contentEventNanos, generatedText, numberInputTokens, maxTokens, outputTokens,
                usagePromptTokens, usageCompletionTokens, finishReason, failure, null, null, NEVER, NEVER, null,
                RequestPhases.UNKNOWN, RequestTags.NONE);
    }

    public boolean succeeded() {
        return failure == null;
    }

    /** Told where output tokens arrived: an offset from the request's send, nanoseconds, and how many (fractional). */
    @FunctionalInterface
    public interface TokenArrival {
        void at(long offsetNanos, double tokens);
    }

    /**
     * Where this request's {@code n} output tokens arrived, for counting the tokens a time window received: spread
     * evenly over its content events (a chunk's share each), or all at its end when it had none (a whole response);
     * nowhere when it has neither or {@code n} is not positive.
     */
    public void forEachTokenArrival(int n, TokenArrival sink) {
        if (n <= 0) return;
        if (contentEventNanos.length > 0) {
            double share = (double) n / contentEventNanos.length;
            for (long e : contentEventNanos) sink.at(e, share);
        } else if (e2eNanos >= 0) {
            sink.at(e2eNanos, n);
        }
    }

    /**
     * As {@link #forEachTokenArrival(int, TokenArrival)}, but {@code n} spread over the content events in proportion
     * to {@code counts} (the tokens each event carried by the count's own source, {@link EventTokenCounts}), so a
     * window that cuts a request gets the tokens of the events inside it; evenly where the counts do not cover every
     * content event or count no token.
     */
    public void forEachTokenArrival(int n, EventTokenCounts counts, TokenArrival sink) {
        long total = 0;
        boolean covered = counts.counted() && counts.events() == contentEventNanos.length;
        if (covered) {
            for (int i = 0; i < contentEventNanos.length; i++) total += counts.count(i);
        }
        if (n <= 0 || total <= 0) {
            forEachTokenArrival(n, sink);
            return;
        }
        for (int i = 0; i < contentEventNanos.length; i++) {
            int c = counts.count(i);
            if (c > 0) sink.at(contentEventNanos[i], (double) n * c / total);
        }
    }

    /** A copy with the client tokenizer's output count filled in (counted off the I/O threads). */
    public RequestRecord withOutputTokens(int tokens) {
        return new RequestRecord(promptIndex, clientRequestId, serverResponseId, startEpochMicros, ttftNanos,
                lastContentNanos, e2eNanos, dataEventCount, contentEventNanos, generatedText, numberInputTokens,
                maxTokens, tokens, usagePromptTokens, usageCompletionTokens, finishReason, failure,
                contentEventChars, contentEventTokens, firstReasoningNanos, connectNanos, workerId, phases, tags);
    }

    /** A copy with the client tokenizer's per-event token counts filled in (parallel to contentEventNanos). */
    public RequestRecord withContentEventTokens(int[] tokensPerEvent) {
        return new RequestRecord(promptIndex, clientRequestId, serverResponseId, startEpochMicros, ttftNanos,
                lastContentNanos, e2eNanos, dataEventCount, contentEventNanos, generatedText, numberInputTokens,
                maxTokens, outputTokens, usagePromptTokens, usageCompletionTokens, finishReason, failure,
                contentEventChars, tokensPerEvent, firstReasoningNanos, connectNanos, workerId, phases, tags);
    }

    /** A copy that names the load worker which sent the request. */
    public RequestRecord withWorkerId(String worker) {
        return new RequestRecord(promptIndex, clientRequestId, serverResponseId, startEpochMicros, ttftNanos,
                lastContentNanos, e2eNanos, dataEventCount, contentEventNanos, generatedText, numberInputTokens,
                maxTokens, outputTokens, usagePromptTokens, usageCompletionTokens, finishReason, failure,
                contentEventChars, contentEventTokens, firstReasoningNanos, connectNanos, worker, phases, tags);
    }

    /** A copy with the request's timing phases. */
    public RequestRecord withPhases(RequestPhases timing) {
        return new RequestRecord(promptIndex, clientRequestId, serverResponseId, startEpochMicros, ttftNanos,
                lastContentNanos, e2eNanos, dataEventCount, contentEventNanos, generatedText, numberInputTokens,
                maxTokens, outputTokens, usagePromptTokens, usageCompletionTokens, finishReason, failure,
                contentEventChars, contentEventTokens, firstReasoningNanos, connectNanos, workerId, timing, tags);
    }

    /** A copy with the request's session, cached-token and image tags. */
    public RequestRecord withTags(RequestTags requestTags) {
        return new RequestRecord(promptIndex, clientRequestId, serverResponseId, startEpochMicros, ttftNanos,
                lastContentNanos, e2eNanos, dataEventCount, contentEventNanos, generatedText, numberInputTokens,
                maxTokens, outputTokens, usagePromptTokens, usageCompletionTokens, finishReason, failure,
                contentEventChars, contentEventTokens, firstReasoningNanos, connectNanos, workerId, phases,
                requestTags);
    }
}
