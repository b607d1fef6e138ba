package io.llmperf4j.run.search;

import io.llmperf4j.report.summary.Plural;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * How long one probe level may run at most ({@code --search-level-max}): a number of requests, or a time.
 *
 * @param requests measured requests (closed loop) or arrivals (open loop), or 0 when limited by time
 * @param duration the time limit, or null when limited by requests
 */
public record LevelLimit(int requests, Duration duration) {

    public LevelLimit {
        if ((requests > 0) == (duration != null)) {
            throw new IllegalArgumentException("a level limit is either requests (> 0) or a duration");
        }
        if (duration != null && (duration.isNegative() || duration.isZero())) {
            throw new IllegalArgumentException("the level time limit (" + duration + ") must be > 0");
        }
    }

    public static LevelLimit requests(int n) {
        return new LevelLimit(n, null);
    }

    public static LevelLimit time(Duration d) {
        return new LevelLimit(0, Objects.requireNonNull(d, "duration"));
    }

    /**
     * "500" (requests) or "30s", "2.5s", "2m".
     *
     * @throws IllegalArgumentException with the accepted forms
     */
    public static LevelLimit parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) return time(Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2))));
            if (t.endsWith("s")) return time(Duration.ofNanos(Math.round(Double.parseDouble(
                    t.substring(0, t.length() - 1)) * 1e9)));
            if (t.endsWith("m")) return time(Duration.ofNanos(Math.round(Double.parseDouble(
                    t.substring(0, t.length() - 1)) * 60e9)));
            int n = Integer.parseInt(t);
            if (n < 1) throw new NumberFormatException();
            return requests(n);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("'" + text + "' is not a level limit: give requests (e.g. 500) or a "
                    + "time (e.g. 30s, 2m) greater than 0");
        }
    }

    /** "500 requests", "30 s". */
    public String describe() {
        if (duration == null) return Plural.of(requests, "request");
        double s = duration.toNanos() / 1e9;
        return (s == Math.rint(s) ? Long.toString((long) s) : Double.toString(s)) + " s";
    }
}
