package io.llmperf4j.dist;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A command run to its end in a folder, its stdout and stderr together: how the release ITs run what they unpacked. */
record CommandRun(int exitCode, String output) {

    static CommandRun in(Path dir, String... command) throws Exception {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end: " + out);
        }
        return new CommandRun(p.exitValue(), out);
    }
}
