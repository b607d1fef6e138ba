package io.llmperf4j.cli;

import java.io.PrintStream;
import java.util.Map;

/**
 * What a command reads from and writes to outside its flags: the environment and the two output streams.
 * Passed in rather than read from {@link System} so that tests can run commands in-process.
 */
record CliContext(Map<String, String> env, PrintStream out, PrintStream err) {
    static CliContext system() {
        return new CliContext(System.getenv(), System.out, System.err);
    }

    String env(String name) {
        return env.get(name);
    }
}
