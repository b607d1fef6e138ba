package io.llmperf4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One page's {@link ResidentCli}: the JVM, started in the page's folder, and the part of the page's
 * {@code bin/llmperf4j} that pastes a command into it. A command the JVM cannot take as typed (typed in another
 * folder, or with an output neither a file, a pipe nor a device, which {@code /proc} cannot open: a socket) goes on
 * to the rest of the launcher, a fresh JVM.
 */
final class ResidentLauncher implements AutoCloseable {
    /** Its start is a JVM's and a listening socket's: seconds on a loaded machine, never this. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Process jvm;
    private final Path folder;
    private final int port;
    private final Path log;

    private ResidentLauncher(Process jvm, Path folder, int port, Path log) {
        this.jvm = jvm;
        this.folder = folder;
        this.port = port;
        this.log = log;
    }

    /**
     * Starts the JVM in {@code folder} with {@code java} (the java command and its options, class path included),
     * its own output to {@code log}, and the environment of {@code shell} (a fresh shell's: what a command's JVM
     * reads from {@code System.getenv} rather than from its context is the same for every command of the page).
     */
    static ResidentLauncher start(Path folder, List<String> java, Path log, ProcessBuilder shell)
            throws IOException, InterruptedException {
        Path portFile = log.resolveSibling(log.getFileName() + ".port");
        List<String> command = new ArrayList<>(java);
        command.add(ResidentCli.class.getName());
        command.add(portFile.toString());
        ProcessBuilder builder = new ProcessBuilder(command).directory(folder.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().clear();
        builder.environment().putAll(shell.environment());
        Process jvm = builder.start();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!Files.exists(portFile)) {
            if (!jvm.isAlive() || System.nanoTime() > deadline) {
                jvm.destroyForcibly();
                throw new IllegalStateException("the page's JVM did not start:\n" + Files.readString(log));
            }
            Thread.sleep(20);
        }
        return new ResidentLauncher(jvm, folder, Integer.parseInt(Files.readString(portFile).trim()), log);
    }

    /**
     * The launcher's lines that paste the command into this JVM and exit with its code, when it can take the
     * command; the launcher's next lines run it otherwise. A TERM (the block's {@code kill %1}, its end) stops the
     * command and waits for it to end, as a JVM's shutdown would be waited for.
     */
    String launcherLines() {
        // the JVM opens copies of stdout and stderr: bash points stdout itself at the socket while it writes there
        String fd = "/proc/$$/fd/";
        return String.join("\n",
                "exec " + ResidentCli.OUT_FD + ">&1 " + ResidentCli.ERR_FD + ">&2",
                "if [ \"$(pwd -P)\" = '" + folder.toAbsolutePath() + "' ] \\",
                "    && { [ -f " + fd + ResidentCli.OUT_FD + " ] || [ -p " + fd + ResidentCli.OUT_FD + " ] || [ -c "
                        + fd + ResidentCli.OUT_FD + " ]; } \\",
                "    && { [ -f " + fd + ResidentCli.ERR_FD + " ] || [ -p " + fd + ResidentCli.ERR_FD + " ] || [ -c "
                        + fd + ResidentCli.ERR_FD + " ]; } \\",
                "    && { exec 3<>/dev/tcp/127.0.0.1/" + port + "; } 2>/dev/null; then",
                "  printf '%s\\0' \"$$\" \"$#\" \"$@\" >&3",
                "  trap 'printf x >&3; read -r -t " + (ResidentCli.STOP_TIMEOUT_MILLIS / 1000 + 10) + " code <&3; exit "
                        + ResidentCli.TERMINATED + "' TERM",
                "  read -r code <&3",
                "  if [ -z \"$code\" ]; then",
                "    echo \"llmperf4j (test): the page's JVM gave no exit code; its output: " + log + "\" >&2",
                "    exit 1",
                "  fi",
                "  exit \"$code\"",
                "fi",
                "exec " + ResidentCli.OUT_FD + ">&- " + ResidentCli.ERR_FD + ">&-",
                "");
    }

    Path log() {
        return log;
    }

    /** Ends the JVM: what a page's commands left running (none should) ends with it. */
    @Override
    public void close() throws InterruptedException {
        jvm.destroy();
        if (!jvm.waitFor(10, TimeUnit.SECONDS)) {
            jvm.destroyForcibly();
            jvm.waitFor();
        }
    }
}
