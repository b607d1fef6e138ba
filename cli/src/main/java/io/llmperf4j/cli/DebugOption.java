package io.llmperf4j.cli;

import picocli.CommandLine.Option;

/** {@code --debug}: stack traces on failure, Hazelcast's lines in a cluster. Read by {@link Main} before parsing; declared here for the help. */
final class DebugOption {
    @Option(names = "--debug",
            description = "Print stack traces of failures, and a cluster member's Hazelcast warnings.")
    boolean debug;
}
