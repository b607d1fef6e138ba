package io.llmperf4j.report.metrics;

/**
 * The stable codes of llmperf4j's run warnings. Codes never change meaning; new ones may be added. The message
 * that comes with a code is plain English and may change.
 */
public enum WarningCode {
    /** Fewer than {@value RunWarnings#MIN_SUCCESSFUL_SAMPLES} successful requests: percentiles are unstable. */
    FEW_SAMPLES,
    /**
     * Requests that ended with {@code finish_reason} "stop" produced a median of less than half their
     * {@code max_tokens}: the model stopped early and throughput looks better than for the requested length.
     */
    EARLY_STOP,
    /** Requests failed (other than cancellations at the end of the run): the server did not hold this load. */
    REQUESTS_FAILED,
    /** Requests were still in flight when the run ended (its timeout or a signal) and were cancelled. */
    REQUESTS_CANCELLED,
    /** Successful requests that streamed no content at all: they have no TTFT. */
    NO_CONTENT,
    /** Successful requests without any output token count: left out of token throughput and TPOT. */
    TOKENS_UNCOUNTED,
    /** Content events carry several tokens on average: ITL (per event) is not a per-token latency. */
    MULTI_TOKEN_CHUNKS,
    /** The client tokenizer and the server's usage disagree on the output token count of many requests. */
    TOKEN_COUNT_MISMATCH,
    /**
     * The server's usage reported more output tokens than the request's {@code max_tokens}: the server did not honour
     * it (or a {@code max_completion_tokens} in {@code --additional-sampling-params} replaced it; a {@code max_tokens}
     * there is the one sent, which the records keep), and every token count includes the extra tokens.
     */
    MAX_TOKENS_EXCEEDED,
    /**
     * The client tokenizer counted far more output than the request's {@code max_tokens} (more than
     * {@value RunWarnings#OUTPUT_BEYOND_MAX_TOKENS_FACTOR} times it and at least
     * {@value RunWarnings#OUTPUT_BEYOND_MAX_TOKENS_MIN_EXCESS} tokens over) while the server's usage stayed within it
     * or was absent: the server ignored {@code max_tokens}, or its usage is wrong. A tokenizer that is not the model's
     * does not explain such a gap.
     */
    OUTPUT_BEYOND_MAX_TOKENS,
    /**
     * Streams that ended cleanly after a finish reason but without the API's end marker ({@code data: [DONE]},
     * Anthropic's {@code message_stop}): recorded as successes, as llmperf records them; the server deviates from
     * the stream format.
     */
    END_MARKER_MISSING,
    /**
     * Streams carried lines the SSE standard ignores that are no comment (a field other than data, event, id and
     * retry: a chunk sent without {@code data:}): skipped, as the standard says, so any output they carried is
     * missing from the generated text and the client's token counts. The server or a proxy does not frame its stream
     * as SSE.
     */
    STREAM_LINES_IGNORED,
    /**
     * The client's event loops ran clearly later than the machine's idle noise: the client was busy (and may have
     * limited throughput) or other work kept it from the CPU. The latencies then include the client's own delays.
     */
    CLIENT_BOTTLENECK,
    /**
     * Most prompt tokens came from the server's prefix cache in a run whose prompts were not built to share prefixes
     * (llmperf's synthetic prompts): they were sent before (an earlier run with the same {@code --seed}), and TTFT
     * measures cached prefill; or the run sent its own prompts again (a workload in a loop), and its repeats hold most
     * of them. The message says which. Raised by the run, which knows how its workload was built.
     */
    PREFIX_CACHE_REUSED,
    /**
     * An open loop completed requests at less than {@code 100 − --saturation-gain} % (95 % by default) of its
     * scheduled rate: the rate sweep's saturation rule, applied to the run's one level. The server (or the
     * {@code --max-concurrency} cap) did not keep up with the offer, so the run measured a lower load than it
     * was asked for. Raised by the run, which knows its schedule.
     */
    BEHIND_SCHEDULE,
    /**
     * An open loop sent more than {@value RunWarnings#SENT_LATE_SHARE_PERCENT} % of its measured arrivals later than
     * their scheduled instants by more than the larger of {@value RunWarnings#SENT_LATE_FLOOR_MILLIS} ms and the mean
     * interval between arrivals (its send lag p99 above that bound): the server saw another arrival pattern than the
     * one asked for, whatever the completion rate (a late pacer catches up in bursts). The lag includes waiting for a
     * free slot under {@code --max-concurrency}. With sessions it judges their starts only (their first turns); their
     * later turns are TURNS_SENT_LATE's. Raised by the run, which knows its schedule.
     */
    SENT_LATE,
    /**
     * Sessions' turns whose due time the client set itself (a later turn after its think time, a failed session's
     * rest, a closed loop's next session when its slot freed) went out more than {@value
     * RunWarnings#SENT_LATE_FLOOR_MILLIS} ms late, at least {@value RunWarnings#TURNS_SENT_LATE_MIN_TURNS} of them
     * and above {@value RunWarnings#SENT_LATE_SHARE_PERCENT} %: the conversation's pace was the client's, not the
     * workload's. SENT_LATE's rule over the sends SENT_LATE does not judge: their TTFT and E2E are judged from the
     * actual send (goodput, --slo), so the lag is not in them and is said here. Raised by the run.
     */
    TURNS_SENT_LATE,
    /**
     * The server's own token counters (its {@code /metrics}: generation tokens, prompt tokens) and the client's counts
     * over the same span differ by more than the scrapes' timing allows: the message says, from both sources, why
     * (the client tokenizer is not the server's; the server sends several tokens per chunk; the server's counter
     * counts something else, such as other traffic). Raised by the run, which scraped the server.
     */
    SERVER_TOKENS_DIFFER
}
