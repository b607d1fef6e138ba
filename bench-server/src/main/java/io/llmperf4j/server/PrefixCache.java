package io.llmperf4j.server;

import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * The simulated engine's prefix cache: an LRU set of KV-block hashes, as vLLM's automatic prefix caching keeps
 * them. A block hash is chained (it covers the block and everything before it), so a prompt hits its longest
 * cached prefix of whole blocks. Thread-safe (one lock; a lookup is a few map operations per block).
 */
final class PrefixCache {

    private final int capacityBlocks;
    /**
     * In access order, so the first entry is the least recently used. Evicted by hand, not by a subclass overriding
     * {@code removeEldestEntry}: loading such a subclass when the embedded server starts breaks C2's assumption that
     * {@code LinkedHashMap} has one {@code removeEldestEntry}, and every compiled method built on it is thrown away,
     * the warmed-up client's request path among them, just before the run (-XX:+LogCompilation: 30 methods at once,
     * {@code dependency_failed}).
     */
    private final LinkedHashMap<Long, Boolean> blocks = new LinkedHashMap<>(16, 0.75f, true);

    /** @param capacityBlocks blocks kept at most; 0 turns the cache off (every lookup misses, nothing is kept) */
    PrefixCache(int capacityBlocks) {
        this.capacityBlocks = capacityBlocks;
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
        for (int i = hits; i < blockHashes.length; i++) {
            blocks.put(blockHashes[i], Boolean.TRUE);
            if (blocks.size() > capacityBlocks) evictLeastRecentlyUsed();
        }
        return hits;
    }

    private void evictLeastRecentlyUsed() {
        Iterator<Long> eldest = blocks.keySet().iterator();
        eldest.next();
        eldest.remove();
    }

    synchronized int size() {
        return blocks.size();
    }
}
