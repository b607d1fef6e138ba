package io.llmperf4j.distributed;

import com.hazelcast.logging.AbstractLogger;
import com.hazelcast.logging.ILogger;
import com.hazelcast.logging.LogEvent;
import com.hazelcast.logging.LoggerFactorySupport;
import com.hazelcast.logging.Slf4jFactory;

import java.util.logging.Level;

/**
 * Hazelcast's logger factory in this process (named by {@code hazelcast.logging.class}): its lines reach slf4j only
 * when {@link #show} was called with true ({@code --debug}). By default they are dropped: merges, UUID resets,
 * "suspected dead" and member-list dumps say nothing a user needs that the run's own lines do not already say (a
 * worker lost, when, what was not sent), and a real failure (cannot bind, cannot join) reaches the user as an
 * exception the command turns into one line of its own.
 */
public final class HazelcastLogGate extends LoggerFactorySupport {
    /** Read at each line, not when a logger is made: members in one JVM (tests) share Hazelcast's loggers. */
    private static volatile boolean shown;
    private final Slf4jFactory slf4j = new Slf4jFactory();

    /** Lets Hazelcast's own lines through to stderr ({@code --debug}) or drops them (the default). */
    public static void show(boolean on) {
        shown = on;
    }

    public static boolean shown() {
        return shown;
    }

    @Override
    protected ILogger createLogger(String name) {
        return new Gated(slf4j.getLogger(name));
    }

    /** A Hazelcast logger that forwards only while the gate is open. */
    private static final class Gated extends AbstractLogger {
        private final ILogger target;

        Gated(ILogger target) {
            this.target = target;
        }

        @Override
        public void log(Level level, String message) {
            if (shown) target.log(level, message);
        }

        @Override
        public void log(Level level, String message, Throwable thrown) {
            if (shown) target.log(level, message, thrown);
        }

        @Override
        public void log(LogEvent event) {
            if (shown) target.log(event);
        }

        @Override
        public Level getLevel() {
            return shown ? target.getLevel() : Level.OFF;
        }

        @Override
        public boolean isLoggable(Level level) {
            return shown && target.isLoggable(level);
        }
    }
}
