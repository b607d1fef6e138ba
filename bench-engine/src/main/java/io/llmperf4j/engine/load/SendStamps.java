package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.RequestRecord;

/**
 * Where a scheduled request's actual send is: at the client's own start stamp, from which its TTFT and E2E count, so
 * that send lag plus TTFT is the first token's time after the intended send, exactly. A runner's stamp taken before
 * {@code client.send} would leave the time between the two (the request's body built, a fresh prompt taken) in
 * neither figure.
 */
final class SendStamps {
    private SendStamps() {
    }

    /**
     * The send's offset from {@code runStartNanos}: the handle's start stamp, or {@code beforeSendOffset} (the
     * runner's stamp before the send) when the client does not tell.
     */
    static long actualOffset(RequestHandle handle, long runStartNanos, long beforeSendOffset) {
        long start = handle.startNanos();
        return start == RequestRecord.NEVER ? beforeSendOffset : start - runStartNanos;
    }
}
