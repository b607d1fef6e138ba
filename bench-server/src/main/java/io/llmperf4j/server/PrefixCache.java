package io.llmperf4j.server;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The simulated engine's prefix cache: an LRU set of KV-block hashes, as vLLM's automatic prefix caching keeps
 * them. A block hash is chained (it covers the block and everything before it), so a prompt hits its longest
 * cached prefix of whole blocks. Thread-safe (one lock; a lookup is a few map operations per block).
 */
final class PrefixCache {

    private final int capacityBlocks;
    private final LinkedHashMap<Long, Boolean> blocks;

    /** @param capacityBlocks blocks kept at most; 0 turns the cache off (every lookup misses, nothing is kept) */
    PrefixCache(int capacityBlocks) {
        this.capacityBlocks = capacityBlocks;
        this.blocks = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > PrefixCache.this.capacityBlocks;
            }
        };
    }

    boolean enabled() {
        return capacityBlocks > 0;
    }

    /**
     * Looks the prompt's blocks up, then keeps all of them (the prefill computes the missing ones): the number of
     * leading blocks that were cached. Every touched block becomes the most recently used.
     */
    synchronized int lookupAndInsert(long[] blockHashes) {
        if (capacityBlocks == 0) return 0;
        int hits = 0;
        while (hits < blockHashes.length && blocks.get(blockHashes[hits]) != null) hits++;
        for (int i = hits; i < blockHashes.length; i++) blocks.put(blockHashes[i], Boolean.TRUE);
        return hits;
    }

    synchronized int size() {
        return blocks.size();
    }
}
