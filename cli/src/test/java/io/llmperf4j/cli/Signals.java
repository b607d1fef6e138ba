package io.llmperf4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Sends a real signal to a child llmperf4j process, as a user's Ctrl-C or a scheduler's SIGTERM would. */
final class Signals {
    private Signals() {
    }

    /** @param signal its name without SIG: TERM, INT */
    static void send(Process process, String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start().waitFor();
    }

    /**
     * Bit 2 (SIGINT) of the SigIgn mask in /proc/self/status: a shell starts background jobs with SIGINT ignored, and
     * children inherit that, so no Ctrl-C can arrive.
     */
    static boolean sigintIgnoredHere() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) return false;
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16) & (1L << 1)) != 0;
            }
        }
        return false;
    }
}
