package io.llmperf4j.datasets.trace;

/**
 * One request of a trace.
 *
 * @param timestampMs  ms since the trace's first request (Mooncake's {@code timestamp}; Azure's TIMESTAMP minus the
 *                     first row's)
 * @param inputLength  prompt tokens
 * @param outputLength tokens to generate ({@code max_tokens})
 * @param hashIds      one id per {@link Trace#BLOCK_TOKENS}-token block of the prompt, the last block partial; equal ids
 *                     are identical blocks (of an identical prefix); null when the trace has none (every block new)
 * @param sessionId    the conversation this request is a turn of, or null
 * @param delayMs      ms to wait after the previous turn's reply before this turn, or -1 when not given
 * @param line         1-based line in the file, for messages
 */
public record TraceRequest(long timestampMs, int inputLength, int outputLength, long[] hashIds, String sessionId,
                           long delayMs, int line) {
}
