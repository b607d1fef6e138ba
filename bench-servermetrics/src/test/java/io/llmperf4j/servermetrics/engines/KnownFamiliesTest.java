package io.llmperf4j.servermetrics.engines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.Fixtures;
import io.llmperf4j.servermetrics.exposition.ExpositionParser;
import io.llmperf4j.servermetrics.exposition.Sample;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class KnownFamiliesTest {

    private static Set<String> names(String fixture) {
        return ExpositionParser.parse(Fixtures.exposition(fixture)).samples().stream().map(Sample::name)
                .collect(Collectors.toSet());
    }

    @Test
    void everyRowBelongsToItsEnginesPrefixAndNoRowRepeats() {
        Set<String> seen = new HashSet<>();
        for (KnownFamily f : KnownFamilies.ALL) {
            assertTrue(f.name().startsWith(f.engine().prefix), f.toString());
            assertTrue(seen.add(f.engine() + "/" + f.role() + "/" + f.name()), "twice: " + f);
        }
    }

    @Test
    void enginesAreDetectedFromRealBodies() {
        assertEquals(ServerEngine.VLLM, ServerEngine.detect(names("vllm-0.0.4.txt")));
        assertEquals(ServerEngine.SGLANG, ServerEngine.detect(names("sglang-0.0.4.txt")));
        assertEquals(ServerEngine.TGI, ServerEngine.detect(names("tgi-0.0.4.txt")));
        assertNull(ServerEngine.detect(Set.of("process_cpu_seconds_total", "python_info")));
    }

    @Test
    void theRolesTheSummaryNeedsAreFoundInRealBodies() {
        Set<String> vllm = names("vllm-0.0.4.txt");
        for (MetricRole role : List.of(MetricRole.REQUESTS_RUNNING, MetricRole.REQUESTS_WAITING,
                MetricRole.KV_CACHE_USAGE, MetricRole.PREFIX_CACHE_HIT_TOKENS, MetricRole.PREFIX_CACHE_QUERIED_TOKENS,
                MetricRole.GENERATION_TOKENS, MetricRole.TIME_TO_FIRST_TOKEN, MetricRole.E2E_REQUEST_LATENCY)) {
            assertTrue(KnownFamilies.find(ServerEngine.VLLM, role, vllm::contains) != null, role.name());
        }
        Set<String> tgi = names("tgi-0.0.4.txt");
        assertNull(KnownFamilies.find(ServerEngine.TGI, MetricRole.TIME_TO_FIRST_TOKEN, tgi::contains));
        assertEquals("tgi_request_generated_tokens",
                KnownFamilies.find(ServerEngine.TGI, MetricRole.GENERATION_TOKENS, tgi::contains).name());
    }

    @Test
    void countersAreFoundWithAndWithoutTotalAndNewNamesBeforeOld() {
        assertEquals("vllm:prefix_cache_hits", KnownFamilies.find(ServerEngine.VLLM, MetricRole.PREFIX_CACHE_HIT_TOKENS,
                Set.of("vllm:prefix_cache_hits")::contains).name());
        assertEquals("vllm:prefix_cache_hits", KnownFamilies.find(ServerEngine.VLLM, MetricRole.PREFIX_CACHE_HIT_TOKENS,
                Set.of("vllm:prefix_cache_hits_total")::contains).name());
        assertEquals("vllm:gpu_prefix_cache_hits", KnownFamilies.find(ServerEngine.VLLM,
                MetricRole.PREFIX_CACHE_HIT_TOKENS, Set.of("vllm:gpu_prefix_cache_hits_total")::contains).name());
        assertEquals("vllm:kv_cache_usage_perc", KnownFamilies.find(ServerEngine.VLLM, MetricRole.KV_CACHE_USAGE,
                Set.of("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")::contains).name());
        assertEquals("vllm:gpu_cache_usage_perc", KnownFamilies.find(ServerEngine.VLLM, MetricRole.KV_CACHE_USAGE,
                Set.of("vllm:gpu_cache_usage_perc")::contains).name());
    }

    @Test
    void unknownFamiliesAreOwnedByNoRow() {
        assertEquals(MetricRole.TIME_TO_FIRST_TOKEN,
                KnownFamilies.owning("vllm:time_to_first_token_seconds_bucket").role());
        assertEquals(MetricRole.GENERATION_TOKENS, KnownFamilies.owning("vllm:generation_tokens_total").role());
        assertNull(KnownFamilies.owning("vllm:spec_decode_num_drafts_total"));
        assertNull(KnownFamilies.owning("python_gc_objects_collected_total"));
    }
}
