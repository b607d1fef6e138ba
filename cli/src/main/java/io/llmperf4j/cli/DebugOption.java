package io.llmperf4j.cli;

import picocli.CommandLine.Option;

/** {@code --debug}: stack traces on failure. Read by {@link Main} before parsing; declared here for the help. */
final class DebugOption {
    @Option(names = "--debug", description = "Print stack traces of failures.")
    boolean debug;
}
