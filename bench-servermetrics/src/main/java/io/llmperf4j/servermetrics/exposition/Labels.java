package io.llmperf4j.servermetrics.exposition;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A sample's label set, sorted by label name so that two scrapes of one series compare equal whatever order the
 * server wrote them in.
 *
 * @param map label name → value, unmodifiable, sorted by name
 */
public record Labels(Map<String, String> map) {

    public static final Labels EMPTY = new Labels(Map.of());

    public Labels {
        Objects.requireNonNull(map, "map");
        if (!(map instanceof SortedUnmodifiable)) map = new SortedUnmodifiable(new TreeMap<>(map));
    }

    /** Labels over a sorted map the caller built and hands over (the parser), without another copy. */
    static Labels adopt(TreeMap<String, String> sorted) {
        return new Labels(new SortedUnmodifiable(sorted));
    }

    /** Marks a map this class already copied and wrapped, so the canonical constructor need not copy it again. */
    private static final class SortedUnmodifiable extends AbstractMap<String, String> {
        private final Map<String, String> view;

        SortedUnmodifiable(TreeMap<String, String> sorted) {
            this.view = Collections.unmodifiableMap(sorted);
        }

        @Override
        public Set<Entry<String, String>> entrySet() {
            return view.entrySet();
        }

        @Override
        public String get(Object key) {
            return view.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            return view.containsKey(key);
        }

        @Override
        public int size() {
            return view.size();
        }
    }

    public static Labels of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) throw new IllegalArgumentException("names and values must pair up");
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) m.put(namesAndValues[i], namesAndValues[i + 1]);
        return new Labels(m);
    }

    /** The value of {@code name}, or null. */
    public String get(String name) {
        return map.get(name);
    }

    public boolean isEmpty() {
        return map.isEmpty();
    }

    /** These labels without {@code name} (a histogram series without its {@code le}). */
    public Labels without(String name) {
        if (!map.containsKey(name)) return this;
        Map<String, String> m = new TreeMap<>(map);
        m.remove(name);
        return new Labels(m);
    }

    /** These labels plus {@code name=value}. */
    public Labels with(String name, String value) {
        Map<String, String> m = new TreeMap<>(map);
        m.put(name, value);
        return new Labels(m);
    }

    /**
     * Prometheus syntax without the braces, escaped as the formats escape label values:
     * {@code engine="0",model_name="m"}; the empty string for no labels.
     */
    public String render() {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, String> e : map.entrySet()) {
            if (!out.isEmpty()) out.append(',');
            out.append(e.getKey()).append("=\"").append(escapeLabelValue(e.getValue())).append('"');
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return "{" + render() + "}";
    }

    static String escapeLabelValue(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
