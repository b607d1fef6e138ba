package io.llmperf4j.run;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C and SIGTERM, from a run's start to its end: each signal goes to the run's {@link Stages} (a
 * {@link StopControl}), which decides what it does; when it says so the process exits at once (code 130).
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
