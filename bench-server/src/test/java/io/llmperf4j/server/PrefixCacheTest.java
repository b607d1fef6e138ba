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

    /**
     * Two models served by one simulator keep their caches apart, as separate engines (and vLLM's model-keyed block
     * hashes) do: model b's first sight of a prompt model a cached is a miss, and its own repeat a hit.
     */
    @Test
    void eachModelHasAPrefixCacheOfItsOwn() throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().modelIds("a", "b")
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO).prefixBlockTokens(16).build())) {
            TestClient client = new TestClient(server);
            String prompt = text('a', 100);
            String forA = completionBody(prompt, false, 2, "").replace("\"test-model\"", "\"a\"");
            String forB = completionBody(prompt, false, 2, "").replace("\"test-model\"", "\"b\"");
            assertEquals(0, cachedTokens(client.postJson("/completions", forA)));
            assertEquals(96, cachedTokens(client.postJson("/completions", forA)));
            assertEquals(0, cachedTokens(client.postJson("/completions", forB)), "model a's blocks are not b's");
            assertEquals(96, cachedTokens(client.postJson("/completions", forB)));

            String origin = server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
            String metrics = new TestClient(origin, null).get("/metrics").body();
            for (String model : new String[] {"a", "b"}) {
                assertTrue(metrics.contains("vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"" + model
                        + "\"} 96.0"), metrics);
            }
        }
    }

    @Test
    void aSharedCacheServesOneModelsPromptsToAnother() throws Exception {
        // a router, or aliases of one engine behind several names
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().modelIds("a", "b")
                .timeToFirstToken(Duration.ZERO).interTokenDelay(Duration.ZERO).prefixBlockTokens(16)
                .sharedPrefixCache(true).build())) {
            TestClient client = new TestClient(server);
            String prompt = text('a', 100);
            String forA = completionBody(prompt, false, 2, "").replace("\"test-model\"", "\"a\"");
            String forB = completionBody(prompt, false, 2, "").replace("\"test-model\"", "\"b\"");
            assertEquals(0, cachedTokens(client.postJson("/completions", forA)));
            assertEquals(96, cachedTokens(client.postJson("/completions", forB)), "model a's blocks serve b");
        }
    }

    private static int cachedTokens(JsonNode response) {
        return response.get("usage").path("prompt_tokens_details").path("cached_tokens").asInt(0);
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
