package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;

import java.util.List;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The server's output tokens per content event over a fork's successful requests that carried
 * {@code usage.completion_tokens}: the unit in which a request that ended without usage (cut at the fork's end, or
 * failed mid-stream) is counted when the other requests are counted by the server's usage. The client tokenizer's
 * count of such a request's text is in another unit whenever the client's tokenizer is not the server's (llama-2
 * counts a QA server's one-token word "tok" as 2), and with {@code --tokenizer server} there is no client count at
 * all. Requests whose reasoning came first are left out: their usage counts reasoning tokens no content event
 * carried.
 */
final class ServerTokensPerEvent {

    private ServerTokensPerEvent() {
    }

    /** Σ usage / Σ content events over {@code timeline}'s successful requests with usage; empty when none. */
    static OptionalDouble of(List<ScheduledRecord> timeline) {
        long tokens = 0;
        long events = 0;
        for (ScheduledRecord r : timeline) {
            RequestRecord rec = r.record();
            OptionalInt usage = OutputTokenPolicy.serverOutputTokens(rec);
            int n = rec.contentEventNanos().length;
            if (!rec.succeeded() || usage.isEmpty() || n == 0 || rec.firstReasoningNanos() >= 0) continue;
            tokens += usage.getAsInt();
            events += n;
        }
        return events == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) tokens / events);
    }
}
