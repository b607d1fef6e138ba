package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.llmperf4j.server.TestClient.completionBody;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PrefixCacheTest {

    /** 4 chars per heuristic token: 400 chars after the BOS are 400 / 4 = 100 tokens. */
    private static String text(char c, int tokens) {
        return String.valueOf(c).repeat(tokens * 4);
    }

    @Test
    void aRepeatedPromptHitsItsWholeBlocksAndVllmOmitsTheDetailsOnAMiss() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO).prefixBlockTokens(16).build())) {
            TestClient client = new TestClient(server);
            String prompt = text('a', 100); // 101 tokens with the BOS: 6 whole blocks in the first 100
            JsonNode first = client.postJson("/completions", completionBody(prompt, false, 2, "")).get("usage");
            assertEquals(101, first.get("prompt_tokens").asInt());
            assertFalse(first.has("prompt_tokens_details"), "vLLM omits cached_tokens when 0");

            JsonNode second = client.postJson("/completions", completionBody(prompt, false, 2, "")).get("usage");
            assertEquals(96, second.get("prompt_tokens_details").get("cached_tokens").asInt());

            // shares the first 50 tokens (blocks 0..2 end at token 47), differs after
            String sibling = text('a', 50) + text('b', 50);
            JsonNode third = client.postJson("/completions", completionBody(sibling, false, 2, "")).get("usage");
            assertEquals(48, third.get("prompt_tokens_details").get("cached_tokens").asInt());

            String origin = server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
            String metrics = new TestClient(origin, null).get("/metrics").body();
            assertTrue(metrics.contains("vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"test-model\"} "
                    + "303.0"), metrics);
            assertTrue(metrics.contains("vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"test-model\"} "
                    + "144.0"), metrics);
        }
    }

    @Test
    void leastRecentlyUsedBlocksAreEvictedAndACacheOfZeroNeverHits() {
        PrefixCache cache = new PrefixCache(3);
        assertEquals(0, cache.lookupAndInsert(new long[] {1, 2}));
        assertEquals(0, cache.lookupAndInsert(new long[] {7, 8}));   // evicts 1
        assertEquals(0, cache.lookupAndInsert(new long[] {1, 2}));   // 1 is gone, so the chain misses
        assertEquals(3, cache.size());
        assertEquals(0, new PrefixCache(0).lookupAndInsert(new long[] {1}));
    }

    @Test
    void blocksFollowARealCountersTokenEnds() {
        String text = "ab cd ef gh";
        int[] ends = {-1, 2, 5, 8, 11}; // a BOS, then four 2-char words
        PromptBlocks blocks = PromptBlocks.fromTokenEnds(text, ends, 2);
        assertEquals(5, blocks.promptTokens());
        assertEquals(2, blocks.blockHashes().length, "tokens 0..3 make two blocks; the last token is never cached");
        PromptBlocks longer = PromptBlocks.fromTokenEnds(text + " ij", new int[] {-1, 2, 5, 8, 11, 14}, 2);
        assertEquals(blocks.blockHashes()[1], longer.blockHashes()[1]);
    }
}
