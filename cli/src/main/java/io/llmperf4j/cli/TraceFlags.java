package io.llmperf4j.cli;

import picocli.CommandLine.Option;

/** token-benchmark's trace replay flags. */
final class TraceFlags {
    @Option(names = "--trace", paramLabel = "FORMAT:FILE",
            description = "Replay a request trace on its own timestamps (an open loop; send lag reported): "
                    + "mooncake:FILE (JSONL: timestamp ms, input_length, output_length, hash_ids of 512-token "
                    + "blocks, optional session_id and delay ms; or AIPerf's text_input, sent as it is, instead of "
                    + "input_length), azure:FILE (CSV TIMESTAMP,ContextTokens,GeneratedTokens) or burstgpt:FILE (CSV "
                    + "Timestamp s,Model,Request tokens,Response tokens,...; failed rows skipped). Prompts are "
                    + "synthesized: equal hash ids give byte-identical blocks, lengths are exact with --tokenizer. "
                    + "--max-concurrency N caps the requests in flight. The whole trace (or the window --trace-start and "
                    + "--trace-duration give) is replayed: "
                    + "--max-num-completed-requests, --num-concurrent-requests, --duration and the arrival flags are "
                    + "refused, and the run's time limit is the trace's span (with sessions: its latest session start "
                    + "plus that session's delays) plus --timeout; requests still unsent at the limit are counted as "
                    + "not sent, with a warning. See also the trace-stats command.")
    String trace;

    @Option(names = "--trace-speedup", paramLabel = "X", defaultValue = "1",
            description = "Replay X times faster (timestamps and delays divided by X).")
    double traceSpeedup;

    @Option(names = "--trace-start", paramLabel = "SECONDS",
            description = "Replay from SECONDS into the (sped-up) trace, counted from its first request (AIPerf's "
                    + "--fixed-schedule-start-offset, in seconds): earlier requests and sessions that started "
                    + "earlier are left out, and the first request kept is sent at 0. With --trace-duration S the "
                    + "window is S seconds from here: --trace-start 3600 --trace-duration 600 replays minute 60 to "
                    + "70.")
    Double traceStart;

    @Option(names = "--trace-duration", paramLabel = "SECONDS",
            description = "Replay only the requests before SECONDS into the (sped-up) trace, or after "
                    + "--trace-start (fractions of a millisecond count).")
    Double traceDuration;
}
