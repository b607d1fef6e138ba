package io.llmperf4j.cli;

import picocli.CommandLine.Option;

/** token-benchmark's multi-turn session and shared-prefix flags. */
final class SessionFlags {
    @Option(names = "--turns", paramLabel = "DIST",
            description = "Multi-turn sessions of N turns, or a distribution per session: fixed:3, uniform:2,6, "
                    + "normal:MEAN,SD,MIN,MAX. Each turn resends the whole history (earlier user turns and the "
                    + "server's actual replies). --num-concurrent-requests counts sessions in flight; an open loop's "
                    + "arrivals start sessions; --max-num-completed-requests still counts requests. With --dataset "
                    + "sharegpt:FILE any value plays whole conversations (all their user turns).")
    String turns;

    @Option(names = "--think-time", paramLabel = "DIST",
            description = "Milliseconds between a reply and the session's next turn: N or fixed:N, uniform:MIN,MAX, "
                    + "normal:MEAN,SD[,MIN,MAX]. Default 0.")
    String thinkTime;

    @Option(names = "--shared-prefix-groups", paramLabel = "G",
            description = "G system prompts of exactly --prefix-tokens tokens; each session (or request) draws one, "
                    + "as agents share tool definitions. Without it --prefix-tokens puts one prefix in every prompt.")
    Integer sharedPrefixGroups;
}
