package io.llmperf4j.servermetrics.engines;

import java.util.Collection;

/** The serving engines whose metric names we know, recognised by the prefix of their families. */
public enum ServerEngine {
    VLLM("vllm", "vllm:"),
    SGLANG("sglang", "sglang:"),
    TGI("tgi", "tgi_"),
    LLAMACPP("llamacpp", "llamacpp:");

    /** The lower-case name used in the summary and the CSV. */
    public final String id;
    /** Every family of this engine starts with this. */
    public final String prefix;

    ServerEngine(String id, String prefix) {
        this.id = id;
        this.prefix = prefix;
    }

    /**
     * The engine whose prefix most of {@code sampleNames} carry, or null when none does (another server, or
     * only process and Python metrics).
     */
    public static ServerEngine detect(Collection<String> sampleNames) {
        ServerEngine best = null;
        long bestCount = 0;
        for (ServerEngine e : values()) {
            long n = sampleNames.stream().filter(s -> s.startsWith(e.prefix)).count();
            if (n > bestCount) {
                best = e;
                bestCount = n;
            }
        }
        return best;
    }
}
