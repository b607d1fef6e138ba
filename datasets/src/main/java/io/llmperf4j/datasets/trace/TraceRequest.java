package io.llmperf4j.datasets.trace;

/**
 * One request of a trace.
 *
 * @param timestampMs  ms since the trace's first request (Mooncake's {@code timestamp}; Azure's TIMESTAMP minus the
 *                     first row's; BurstGPT's Timestamp, seconds, minus the first row's)
 * @param inputLength  prompt tokens; for a {@code textInput} request, its text's tokens once counted
 *                     ({@link Trace#counted}), 0 before
 * @param outputLength tokens to generate ({@code max_tokens})
 * @param hashIds      one id per {@link Trace#BLOCK_TOKENS}-token block of the prompt, the last block partial; equal ids
 *                     are identical blocks (of an identical prefix); null when the trace has none (every block new)
 * @param sessionId    the conversation this request is a turn of, or null
 * @param delayMs      ms to wait after the previous turn's reply before this turn, or -1 when not given
 * @param line         1-based line in the file, for messages
 * @param textInput    the prompt to send as it is (AIPerf's Mooncake {@code text_input}), or null: synthesized
 */
public record TraceRequest(long timestampMs, int inputLength, int outputLength, long[] hashIds, String sessionId,
                           long delayMs, int line, String textInput) {

    /** A request whose prompt is synthesized from its length (and hash ids). */
    public TraceRequest(long timestampMs, int inputLength, int outputLength, long[] hashIds, String sessionId,
                        long delayMs, int line) {
        this(timestampMs, inputLength, outputLength, hashIds, sessionId, delayMs, line, null);
    }

    /** The same request at another time, with another delay (a sped-up trace). */
    TraceRequest at(long timestamp, long delay) {
        return new TraceRequest(timestamp, inputLength, outputLength, hashIds, sessionId, delay, line, textInput);
    }

    /** The same request with {@code tokens} as its input length (a text's, counted). */
    TraceRequest withInputLength(int tokens) {
        return new TraceRequest(timestampMs, tokens, outputLength, hashIds, sessionId, delayMs, line, textInput);
    }
}
