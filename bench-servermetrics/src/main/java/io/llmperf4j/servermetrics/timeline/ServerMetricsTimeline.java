package io.llmperf4j.servermetrics.timeline;

import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.Labels;
import io.llmperf4j.servermetrics.exposition.MetricFamily;
import io.llmperf4j.servermetrics.exposition.Sample;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every scrape of one run, in time order, and the series they served. Immutable; a {@link Recorder} builds it
 * scrape by scrape and hands out snapshots.
 */
public final class ServerMetricsTimeline {

    /** A timeline with no scrapes (metrics off, or not yet scraped). */
    public static final ServerMetricsTimeline EMPTY = new ServerMetricsTimeline(List.of(), List.of());

    private static final int MAX_WARNING_REASONS = 3;

    private final List<Series> series;
    private final List<Scrape> scrapes;

    ServerMetricsTimeline(List<Series> series, List<Scrape> scrapes) {
        this.series = List.copyOf(series);
        this.scrapes = List.copyOf(scrapes);
    }

    public static Recorder recorder() {
        return new Recorder();
    }

    /** Every series any scrape served, by id. */
    public List<Series> series() {
        return series;
    }

    /** Every scrape, successful or not, in time order. */
    public List<Scrape> scrapes() {
        return scrapes;
    }

    /** The successful scrapes, in time order. */
    public List<Scrape> successfulScrapes() {
        return scrapes.stream().filter(Scrape::ok).toList();
    }

    /** The failed scrapes (the gaps), in time order. */
    public List<Scrape> failedScrapes() {
        return scrapes.stream().filter(s -> !s.ok()).toList();
    }

    /** The series with this sample name, any labels. */
    public List<Series> seriesNamed(String sampleName) {
        return series.stream().filter(s -> s.name().equals(sampleName)).toList();
    }

    /** True when some scrape served a sample of this name. */
    public boolean hasSample(String sampleName) {
        for (Series s : series) {
            if (s.name().equals(sampleName)) return true;
        }
        return false;
    }

    /**
     * Warnings for the run's output, empty when every scrape succeeded: how many scrapes failed and the most
     * frequent reasons with the first one's times, when it was sent and (when that reads otherwise) when it failed,
     * e.g. "server metrics: 3 of 120 scrapes failed (gaps in the timeline): 3× timed out after 5 s, first sent at
     * 41.0 s (failed at 46.0 s)".
     */
    public List<String> warnings() {
        return warnings("server metrics");
    }

    /** As {@link #warnings()}, the message starting with {@code source} (which names the URL, say). */
    public List<String> warnings(String source) {
        return warnings(source, s -> false);
    }

    /**
     * As {@link #warnings(String)}, leaving out the failed scrapes {@code saidElsewhere} (another warning names them
     * and what they cost: a failed scrape at the window's end, say): one warning per cause. Empty when no other
     * scrape failed.
     */
    public List<String> warnings(String source, java.util.function.Predicate<Scrape> saidElsewhere) {
        List<Scrape> failed = failedScrapes().stream().filter(saidElsewhere.negate()).toList();
        if (failed.isEmpty()) return List.of();
        Map<String, List<Scrape>> byReason = new LinkedHashMap<>();
        for (Scrape s : failed) byReason.computeIfAbsent(s.failure(), k -> new ArrayList<>()).add(s);
        List<String> reasons = byReason.entrySet().stream()
                .sorted((a, b) -> Integer.compare(b.getValue().size(), a.getValue().size()))
                .limit(MAX_WARNING_REASONS)
                .map(e -> e.getValue().size() + "× " + e.getKey() + ", first " + when(e.getValue().get(0)))
                .toList();
        String more = byReason.size() > MAX_WARNING_REASONS
                ? "; " + (byReason.size() - MAX_WARNING_REASONS) + " other reasons" : "";
        return List.of(source + ": " + failed.size() + " of " + scrapes.size()
                + " scrapes failed (gaps in the timeline): " + String.join("; ", reasons) + more);
    }

    /** "sent at 1.5 s (failed at 6.5 s)", or "sent at 1.5 s" alone for a failure that came at once. */
    private static String when(Scrape failed) {
        String sent = String.format(Locale.ROOT, "%.1f s", failed.offsetNanos() / 1e9);
        String failedAt = String.format(Locale.ROOT, "%.1f s", failed.failedAtNanos() / 1e9);
        return "sent at " + sent + (failedAt.equals(sent) ? "" : " (failed at " + failedAt + ")");
    }

    /**
     * Builds a timeline one scrape at a time; thread-safe, so a scraper thread records while another thread takes
     * snapshots.
     */
    public static final class Recorder {

        private record Key(String name, Labels labels) {
        }

        private final Map<Key, Series> seriesByKey = new HashMap<>();
        private final List<Series> series = new ArrayList<>();
        private final List<Scrape> scrapes = new ArrayList<>();

        private Recorder() {
        }

        /**
         * Records a successful scrape; creation-time samples ({@link Exposition#withoutCreated()}) are dropped. A
         * scrape is placed in time order among those recorded: two threads scrape (the periodic one and the window's
         * edges'), so one that took longer may be recorded after a later one.
         */
        public synchronized void recordScrape(long offsetNanos, long durationNanos, Exposition exposition) {
            Exposition kept = exposition.withoutCreated();
            int n = kept.sampleCount();
            int[] ids = new int[n];
            double[] values = new double[n];
            int i = 0;
            for (MetricFamily family : kept.families()) {
                for (Sample sample : family.samples()) {
                    Key key = new Key(sample.name(), sample.labels());
                    Series s = seriesByKey.get(key);
                    if (s == null) {
                        s = new Series(series.size(), sample.name(), sample.labels(), family.name(), family.type());
                        seriesByKey.put(key, s);
                        series.add(s);
                    }
                    ids[i] = s.id();
                    values[i] = sample.value();
                    i++;
                }
            }
            sortByIds(ids, values);
            add(new Scrape(offsetNanos, durationNanos, null, ids, values));
        }

        /** Records a failed scrape: a gap with its reason, at the instant it was sent ({@link Scrape#offsetNanos()}). */
        public synchronized void recordFailure(long offsetNanos, long durationNanos, String reason) {
            add(new Scrape(offsetNanos, durationNanos, reason == null ? "failed" : reason, new int[0], new double[0]));
        }

        /**
         * Takes out the successful scrape recorded at {@code offsetNanos} that took {@code durationNanos} (a periodic
         * scrape an edge scrape overlapped); nothing when there is none. The series it created stay.
         */
        public synchronized void removeScrape(long offsetNanos, long durationNanos) {
            scrapes.removeIf(s -> s.ok() && s.offsetNanos() == offsetNanos && s.durationNanos() == durationNanos);
        }

        /** The timeline so far. */
        public synchronized ServerMetricsTimeline snapshot() {
            return new ServerMetricsTimeline(series, scrapes);
        }

        /** Inserts {@code scrape} after every scrape at or before its offset (mostly the last place). */
        private void add(Scrape scrape) {
            int at = scrapes.size();
            while (at > 0 && scrapes.get(at - 1).offsetNanos() > scrape.offsetNanos()) at--;
            scrapes.add(at, scrape);
        }

        /** Ids are unique within a scrape (the parser rejects duplicate samples); sort both arrays by id. */
        private static void sortByIds(int[] ids, double[] values) {
            long[] packed = new long[ids.length];
            for (int i = 0; i < ids.length; i++) packed[i] = ((long) ids[i] << 32) | i;
            Arrays.sort(packed);
            double[] copy = values.clone();
            for (int i = 0; i < ids.length; i++) {
                ids[i] = (int) (packed[i] >>> 32);
                values[i] = copy[(int) packed[i]];
            }
        }
    }
}
