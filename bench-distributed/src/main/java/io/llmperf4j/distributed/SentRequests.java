package io.llmperf4j.distributed;

import java.util.List;

/**
 * A worker's word on what it sent since its last word: each measured request as it went out (so the coordinator
 * knows, should the worker die, which of its requests were sent and which never were). Warmup requests are not told
 * ({@link SendWatchingClient}).
 *
 * @param sends  measured requests sent, in send order
 */
record SentRequests(List<Sent> sends) {

    SentRequests {
        sends = List.copyOf(sends);
    }

    /**
     * One request as it went out.
     *
     * @param clientRequestId   its id, as its record will carry it
     * @param promptIndex       its prompt's index
     * @param inputTokens       its prompt's input tokens, as the workload counted them
     * @param maxTokens         its requested output tokens
     * @param sendOffsetNanos   when it was sent, from the shared start instant (the worker's clock): its place on
     *                          the merged timeline
     * @param sendEpochMicros   when it was sent, on the worker's wall clock, as its record's start would say
     */
    record Sent(String clientRequestId, int promptIndex, int inputTokens, int maxTokens, long sendOffsetNanos, long sendEpochMicros) {
    }
}
