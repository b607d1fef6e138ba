package io.llmperf4j.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ctrl-C and SIGTERM during a run: the first stops issuing requests, cancels those in flight and lets the run write
 * everything recorded; the second exits at once.
 */
final class InterruptHandler implements AutoCloseable {
    private static final String[] SIGNALS = {"INT", "TERM"};

    private final SignalHandler[] previous = new SignalHandler[SIGNALS.length];

    private InterruptHandler(Runnable stopRun, PrintStream err) {
        AtomicInteger received = new AtomicInteger();
        SignalHandler handler = signal -> {
            if (received.incrementAndGet() == 1) {
                err.println("\nllmperf4j: " + signal.getName() + " received: stopping, cancelling requests in "
                        + "flight and writing the results recorded so far (again to quit at once)");
                stopRun.run();
            } else {
                Runtime.getRuntime().halt(ExitCodes.INTERRUPTED);
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
        return new InterruptHandler(stopRun, err);
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
