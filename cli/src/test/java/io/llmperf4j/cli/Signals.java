package io.llmperf4j.cli;

/** Sends a real signal to a child llmperf4j process, as a user's Ctrl-C or a scheduler's SIGTERM would. */
final class Signals {
    private Signals() {
    }

    /** @param signal its name without SIG: TERM, INT */
    static void send(Process process, String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
    }
}
