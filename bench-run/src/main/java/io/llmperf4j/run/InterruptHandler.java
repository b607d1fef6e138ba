package io.llmperf4j.run;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ctrl-C and SIGTERM during a run: the first stops issuing requests, cancels those in flight and lets the run write
 * everything recorded; the second exits at once. {@link #installStaged} lets a run with several stages (a sweep)
 * decide per signal instead.
 */
final class InterruptHandler implements AutoCloseable {
    /** The exit code of a process a second signal ends at once (128 + SIGINT's 2, as shells report Ctrl-C). */
    static final int EXIT_CODE = 130;
    private static final String[] SIGNALS = {"INT", "TERM"};

    /** Decides what a signal does; runs on the JVM's signal thread. */
    @FunctionalInterface
    interface Stages {
        /**
         * @param signal "INT" or "TERM"
         * @return true when the signal was handled (a stop was requested), false to exit at once
         */
        boolean onSignal(String signal);
    }

    private final SignalHandler[] previous = new SignalHandler[SIGNALS.length];

    private InterruptHandler(Stages stages) {
        SignalHandler handler = signal -> {
            if (!stages.onSignal(signal.getName())) {
                Runtime.getRuntime().halt(EXIT_CODE);
            }
        };
        for (int i = 0; i < SIGNALS.length; i++) {
            try {
                previous[i] = Signal.handle(new Signal(SIGNALS[i]), handler);
            } catch (IllegalArgumentException unsupported) {
                previous[i] = null; // the platform or JVM options do not allow this signal; default handling stays
            }
        }
    }

    static InterruptHandler install(Runnable stopRun, PrintStream err) {
        AtomicInteger received = new AtomicInteger();
        return new InterruptHandler(signal -> {
            if (received.incrementAndGet() == 1) {
                err.println("\nllmperf4j: " + signal + " received: stopping, cancelling requests in "
                        + "flight and writing the results recorded so far (again to quit at once)");
                stopRun.run();
                return true;
            }
            return false;
        });
    }

    /** Each signal goes to {@code stages}; when it returns false the process exits at once (code 130). */
    static InterruptHandler installStaged(Stages stages) {
        return new InterruptHandler(stages);
    }

    @Override
    public void close() {
        for (int i = 0; i < SIGNALS.length; i++) {
            if (previous[i] != null) {
                Signal.handle(new Signal(SIGNALS[i]), previous[i]);
            }
        }
    }
}
