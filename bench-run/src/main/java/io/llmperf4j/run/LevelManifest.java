package io.llmperf4j.run;

import io.llmperf4j.datasets.manifest.ManifestHeader;
import io.llmperf4j.datasets.manifest.WorkloadManifest;
import io.llmperf4j.model.RequestSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workload of a run whose levels (and harness forks) each draw prompts of their own
 * ({@link WorkloadSource#drawsFresh}), as one manifest: every draw's requests one after another in run order, indexed
 * 0..n-1 as in any manifest, and the header's {@code generation.levels} telling them apart, one entry per draw:
 * <pre>
 * {"level":"concurrency 4","level_index":1,"fork":0,"seed":-5474…,"first_index":40,"request_count":40}
 * </pre>
 * A run replaying it ({@code --workload}) sends at its level i, fork f the requests of entry (i, f), indexed from 0 as
 * they were sent; a manifest without levels (a plain run's, any other workload's) is the same requests at every
 * level. The entries sit in {@code generation}, a free-form object: the format (version 1) is unchanged, and a reader
 * that does not know them replays every draw's requests as one list.
 */
public final class LevelManifest {
    /** The key in the header's {@code generation}. */
    static final String LEVELS = "levels";

    private LevelManifest() {
    }

    /**
     * One draw in the file.
     *
     * @param level        the level as the run named it ("concurrency 4", "rate 2 req/s")
     * @param levelIndex   its 0-based position in the run's levels
     * @param fork         the harness fork, 0-based (0 without iterations)
     * @param seed         the seed it was drawn from
     * @param firstIndex   the file index of its first request
     * @param requestCount its requests
     */
    record Entry(String level, int levelIndex, int fork, long seed, int firstIndex, int requestCount) {
        Map<String, Object> json() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("level", level);
            m.put("level_index", levelIndex);
            m.put("fork", fork);
            m.put("seed", seed);
            m.put("first_index", firstIndex);
            m.put("request_count", requestCount);
            return m;
        }
    }

    /** Each draw of a run, in run order (level by level, fork by fork). */
    record Draw(String level, int levelIndex, int fork, long seed, List<RequestSpec> requests) {
    }

    /** Writes {@code draws} to {@code file} under {@code base} with their entries added to its generation. */
    static void write(Path file, ManifestHeader base, List<Draw> draws) {
        List<RequestSpec> all = new ArrayList<>();
        List<Map<String, Object>> entries = new ArrayList<>();
        for (Draw d : draws) {
            entries.add(new Entry(d.level(), d.levelIndex(), d.fork(), d.seed(), all.size(), d.requests().size())
                    .json());
            for (RequestSpec r : d.requests()) all.add(indexed(r, all.size()));
        }
        Map<String, Object> generation = new LinkedHashMap<>(base.generation());
        generation.put(LEVELS, entries);
        WorkloadManifest.write(file, all, new ManifestHeader(base.kind(), base.tokenizer(), base.seed(),
                base.source(), base.sourceSha256(), generation, base.samplingParams()));
    }

    /**
     * The draws of {@code header}'s {@code generation.levels}, in file order; empty for a manifest without levels.
     *
     * @throws InvalidRequestException naming the file when the entries are malformed
     */
    static List<Entry> entries(ManifestHeader header, Path file) {
        Object levels = header.generation().get(LEVELS);
        if (levels == null) return List.of();
        if (!(levels instanceof List<?> list) || list.isEmpty()) throw malformed(file, "not a list of levels");
        List<Entry> entries = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> m) || !(m.get("level") instanceof String level)) {
                throw malformed(file, "an entry without its level");
            }
            entries.add(new Entry(level, whole(m, "level_index", file), whole(m, "fork", file),
                    m.get("seed") instanceof Number n ? n.longValue() : 0, whole(m, "first_index", file),
                    whole(m, "request_count", file)));
        }
        return entries;
    }

    /**
     * The requests one level of a replay of {@code manifest} sends at most: each draw's count for a manifest of
     * levels (the smallest, should they differ), else all of its requests.
     *
     * @throws io.llmperf4j.datasets.DatasetFormatException when the file is not a manifest
     * @throws java.io.UncheckedIOException                  naming the file when it cannot be read
     * @throws InvalidRequestException                       when its levels are malformed
     */
    public static int requestsPerLevel(Path manifest) {
        List<Entry> entries = entries(WorkloadManifest.header(manifest), manifest);
        if (entries.isEmpty()) return WorkloadManifest.requestCount(manifest);
        return entries.stream().mapToInt(Entry::requestCount).min().orElseThrow();
    }

    /** Whether {@code manifest} holds the draws of several levels (or forks). */
    public static boolean hasLevels(Path manifest) {
        return !entries(WorkloadManifest.header(manifest), manifest).isEmpty();
    }

    /** The requests of {@code entry} in {@code all} (a manifest's), indexed from 0 as the level sent them. */
    static List<RequestSpec> slice(List<RequestSpec> all, Entry entry, Path file) {
        if (entry.firstIndex() < 0 || entry.requestCount() < 0
                || (long) entry.firstIndex() + entry.requestCount() > all.size()) {
            throw malformed(file, entry.level() + " reaches past the file's " + all.size() + " requests");
        }
        List<RequestSpec> out = new ArrayList<>(entry.requestCount());
        for (int i = 0; i < entry.requestCount(); i++) out.add(indexed(all.get(entry.firstIndex() + i), i));
        return out;
    }

    private static RequestSpec indexed(RequestSpec r, int index) {
        return new RequestSpec(index, r.prompt(), r.numberInputTokens(), r.maxTokens(), r.inputs());
    }

    private static int whole(Map<?, ?> m, String key, Path file) {
        if (!(m.get(key) instanceof Number n) || n.longValue() != n.doubleValue() || n.longValue() < 0
                || n.longValue() > Integer.MAX_VALUE) {
            throw malformed(file, "an entry's " + key + " is not a whole number >= 0");
        }
        return n.intValue();
    }

    private static InvalidRequestException malformed(Path file, String problem) {
        return new InvalidRequestException("--workload " + file + ": generation.levels in its header is malformed ("
                + problem + ")");
    }
}
