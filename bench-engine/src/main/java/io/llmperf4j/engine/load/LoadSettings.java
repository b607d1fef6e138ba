package io.llmperf4j.engine.load;

import java.time.Duration;
import java.util.Map;

/**
 * One load point, as a runner takes it: {@link ClosedLoopSettings} (a concurrency) or {@link OpenLoopSettings} (a
 * request rate). A sweep is a list of these; {@link LoadProfile#levels} expands a profile into them.
 */
public sealed interface LoadSettings permits ClosedLoopSettings, OpenLoopSettings {

    /** The concurrency (closed loop) or the rate in requests per second (open loop). */
    double level();

    /** "concurrency" or "rate", the name of {@link #level()}. */
    String levelName();

    /** Run duration limit, warmup included: at the limit, requests in flight are cancelled and recorded. */
    Duration timeout();

    Warmup warmup();

    LoadSettings withWarmup(Warmup warmup);

    /** The load's parameters as JMH {@code params}, in a stable order (values as text). */
    Map<String, String> params();

    /** One line for humans, e.g. "closed loop, concurrency 8". */
    String describe();

    /** How a level is named in tables and messages: "concurrency 8", "rate 2 req/s". */
    static String label(String levelName, double level) {
        return label(levelName, level, "req/s");
    }

    /**
     * As {@link #label(String, double)}, a rate in {@code rateUnit}: "rate 2 sessions/s" for a rate of sessions
     * (--turns), whose arrivals start sessions.
     */
    static String label(String levelName, double level, String rateUnit) {
        String value = formatLevel(level);
        return levelName.equals("rate") ? "rate " + value + " " + rateUnit : levelName + " " + value;
    }

    /** {@code 8} for 8.0, {@code 2.5} for 2.5: a level as people write it. */
    static String formatLevel(double level) {
        if (level == Math.rint(level) && Math.abs(level) < 1e15) return Long.toString((long) level);
        return Double.toString(level);
    }
}
