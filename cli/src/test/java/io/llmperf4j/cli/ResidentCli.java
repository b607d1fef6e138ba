package io.llmperf4j.cli;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The JVM one page of {@link ReadmeCommandsTest} pastes its {@code bin/llmperf4j} commands into, one after the other
 * (and beside one another: {@code serve ... &}), instead of a fresh JVM per command: each command runs as
 * {@link Main#main} would run it, through {@link Main#execute}, with the environment, output streams and exit code of
 * the shell that typed it. Its working folder is the page's, as a command's would be: Java resolves relative paths
 * against the folder it started in, so a command typed elsewhere is not for this JVM (the page's launcher checks).
 *
 * <p>The page's {@code bin/llmperf4j} ({@link ResidentLauncher}) connects to 127.0.0.1 on the port this JVM writes
 * to the file its argument names, and writes its process id, its argument count and its arguments, each ended by a
 * NUL byte. This JVM reads the launcher's environment from {@code /proc/PID/environ} (what {@code System.getenv}
 * would hold in the JVM the launcher would exec), opens the launcher's copies of its stdout and stderr
 * ({@code /proc/PID/fd/7} and {@code /fd/8}, see {@link #OUT_FD}) for appending (the shell's redirections, whatever
 * they are: the block's log, {@code > summary.json}, a pipe, {@code <(...)}), runs the command and writes its exit
 * code as a line. The launcher's TERM trap ({@code kill %1}, the block's end) writes one byte: as for a JVM that
 * SIGTERM ends, the command's output stops there and its thread is interrupted ({@code serve} closes its server),
 * and the launcher exits 143 once it has ended.
 *
 * <p>What a command writes to {@code System.out} or {@code System.err} rather than to its {@link CliContext} goes to
 * the command it was written for: the thread that runs the command and the threads it starts write to that
 * command's streams until it ends; threads of no running command write to this JVM's own output (the test reads
 * it too).
 */
final class ResidentCli {
    /** The exit code of a JVM that SIGTERM ended (128 + 15), as the shell reports it. */
    static final int TERMINATED = 143;
    /**
     * The launcher's copies of its stdout and stderr, which this JVM opens: while bash writes the request to the
     * socket ({@code printf ... >&3}) its stdout is the socket, which {@code /proc} cannot open.
     */
    static final int OUT_FD = 7;
    static final int ERR_FD = 8;
    /** How long a terminated command is interrupted for; the launcher waits for its code a little longer. */
    static final long STOP_TIMEOUT_MILLIS = 30_000;

    /** The streams of the command the current thread works for; null: none, this JVM's own. */
    private static final InheritableThreadLocal<Streams> COMMAND = new InheritableThreadLocal<>();

    private ResidentCli() {
    }

    public static void main(String[] args) throws IOException {
        // as Main.main, once for every command
        if (System.getProperty("io.netty.jfr.enabled") == null) System.setProperty("io.netty.jfr.enabled", "false");
        PrintStream ownOut = System.out;
        PrintStream ownErr = System.err;
        System.setOut(new PrintStream(new Routed(ownOut, false), true, Charset.defaultCharset()));
        System.setErr(new PrintStream(new Routed(ownErr, true), true, Charset.defaultCharset()));
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            // whole or absent: the test polls for the file
            Path portFile = Path.of(args[0]);
            Path partial = Files.writeString(portFile.resolveSibling(portFile.getFileName() + ".partial"),
                    Integer.toString(server.getLocalPort()));
            Files.move(partial, portFile, StandardCopyOption.ATOMIC_MOVE);
            while (true) {
                Socket launcher = server.accept();
                Thread command = new Thread(() -> serve(launcher), "pasted-command");
                command.setDaemon(true);
                command.start();
            }
        }
    }

    /** One pasted command, from its launcher's request to its exit code. */
    private static void serve(Socket launcher) {
        try (launcher) {
            InputStream in = launcher.getInputStream();
            long pid = Long.parseLong(field(in));
            String[] args = new String[Integer.parseInt(field(in))];
            for (int i = 0; i < args.length; i++) args[i] = field(in);
            Path proc = Path.of("/proc", Long.toString(pid));
            int code;
            try (Streams streams = Streams.open(proc)) {
                Path cwd = proc.resolve("cwd").toRealPath();
                if (!cwd.equals(Path.of("").toRealPath())) {
                    streams.err().println("llmperf4j (test): typed in " + cwd + ", not in " + Path.of("").toRealPath()
                            + ", where this page's JVM runs");
                    code = ExitCodes.FAILURE;
                } else {
                    Thread thread = Thread.currentThread();
                    Thread stop = new Thread(() -> stopOnTerm(in, streams, thread), "pasted-command-term");
                    stop.setDaemon(true);
                    stop.start();
                    COMMAND.set(streams);
                    try {
                        code = Main.execute(new CliContext(environment(proc), streams.out(), streams.err()), args);
                    } finally {
                        COMMAND.remove();
                        streams.end();
                    }
                    Thread.interrupted(); // a TERM that came as the command ended
                }
                if (streams.terminated()) code = TERMINATED;
            }
            launcher.getOutputStream().write((code + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            // the launcher went away before its request was whole, or before its code: nothing waits for it
            e.printStackTrace();
        }
    }

    /**
     * Any byte or the end of the launcher's stream: its TERM trap ran, or it was killed. The command's thread is
     * interrupted until the command returns (at most {@link #STOP_TIMEOUT_MILLIS}): an interrupt that comes while
     * it starts may be taken by what it waits for then (a server's bind) rather than by what it waits in later.
     */
    private static void stopOnTerm(InputStream in, Streams streams, Thread command) {
        try {
            in.read();
        } catch (IOException closed) {
            return; // the command ended and its socket closed
        }
        if (!streams.terminate()) return;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_TIMEOUT_MILLIS);
        while (!streams.returned() && System.nanoTime() < deadline) {
            command.interrupt();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The fields of a request end with a NUL byte. */
    private static String field(InputStream in) throws IOException {
        ByteArrayOutputStream field = new ByteArrayOutputStream();
        for (int b = in.read(); b != 0; b = in.read()) {
            if (b < 0) throw new IOException("the launcher's request ended early");
            field.write(b);
        }
        return field.toString(Charset.defaultCharset());
    }

    /** The launcher's environment: what the JVM it would exec finds in {@code System.getenv}. */
    private static Map<String, String> environment(Path proc) throws IOException {
        Map<String, String> env = new LinkedHashMap<>();
        for (String entry : new String(Files.readAllBytes(proc.resolve("environ")), Charset.defaultCharset())
                .split("\0")) {
            int eq = entry.indexOf('=');
            if (eq > 0) env.put(entry.substring(0, eq), entry.substring(eq + 1));
        }
        return Map.copyOf(env);
    }

    /**
     * A command's stdout and stderr: the launcher's, opened through {@code /proc}. Once the command has ended or was
     * terminated, what is still written to them is dropped, as a JVM that exited writes nothing more.
     */
    static final class Streams implements AutoCloseable {
        private final Gate outGate;
        private final Gate errGate;
        private final PrintStream out;
        private final PrintStream err;
        private boolean ended;
        private boolean terminated;

        private Streams(Gate outGate, Gate errGate) {
            this.outGate = outGate;
            this.errGate = errGate;
            // as the JVM's own System.out and System.err: a small buffer, flushed at each line
            this.out = new PrintStream(new BufferedOutputStream(outGate, 128), true, Charset.defaultCharset());
            this.err = new PrintStream(new BufferedOutputStream(errGate, 128), true, Charset.defaultCharset());
        }

        static Streams open(Path proc) throws IOException {
            FileOutputStream out = new FileOutputStream(proc.resolve("fd/" + OUT_FD).toFile(), true);
            try {
                return new Streams(new Gate(out),
                        new Gate(new FileOutputStream(proc.resolve("fd/" + ERR_FD).toFile(), true)));
            } catch (IOException e) {
                out.close();
                throw e;
            }
        }

        PrintStream out() {
            return out;
        }

        PrintStream err() {
            return err;
        }

        /** The command returned: what it wrote is flushed, what is written later is dropped. */
        synchronized void end() {
            out.flush();
            err.flush();
            ended = true;
            outGate.shut();
            errGate.shut();
        }

        /** SIGTERM's part: true when the command was still running (its thread is then to be interrupted). */
        synchronized boolean terminate() {
            if (ended) return false;
            terminated = true;
            outGate.shut();
            errGate.shut();
            return true;
        }

        synchronized boolean terminated() {
            return terminated;
        }

        /** The command returned (or its streams were closed). */
        synchronized boolean returned() {
            return ended;
        }

        synchronized boolean running() {
            return !ended && !terminated;
        }

        @Override
        public void close() throws IOException {
            end();
            outGate.closeTarget();
            errGate.closeTarget();
        }
    }

    /** An output stream that drops what is written once it is shut. */
    private static final class Gate extends OutputStream {
        private final OutputStream target;
        private volatile boolean shut;

        Gate(OutputStream target) {
            this.target = target;
        }

        void shut() {
            shut = true;
        }

        void closeTarget() throws IOException {
            shut = true;
            synchronized (this) {
                target.close();
            }
        }

        @Override
        public synchronized void write(int b) throws IOException {
            if (!shut) target.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            if (!shut) target.write(b, off, len);
        }
    }

    /** {@code System.out} or {@code System.err}: the running command's, else this JVM's own. */
    private static final class Routed extends OutputStream {
        private final PrintStream own;
        private final boolean err;

        Routed(PrintStream own, boolean err) {
            this.own = own;
            this.err = err;
        }

        private PrintStream target() {
            Streams command = COMMAND.get();
            if (command == null || !command.running()) return own;
            return err ? command.err() : command.out();
        }

        @Override
        public void write(int b) {
            target().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            target().write(b, off, len);
        }

        @Override
        public void flush() {
            target().flush();
        }
    }
}
