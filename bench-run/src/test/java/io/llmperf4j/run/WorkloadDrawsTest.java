package io.llmperf4j.run;

import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.io.PrintStream;
import java.io.ByteArrayOutputStream;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each level, fork and model of synthetic prompts draws its own, reproducibly from --seed; a shared workload not. */
class WorkloadDrawsTest {
    private static final PrintStream QUIET = new PrintStream(new ByteArrayOutputStream());

    private static WorkloadSource synthetic(long seed) {
        WorkloadSpec d = WorkloadSpec.llmperfDefaults();
        WorkloadSpec spec = new WorkloadSpec(d.meanInputTokens(), d.stddevInputTokens(), d.meanOutputTokens(),
                d.stddevOutputTokens(), d.tokenizer(), d.allowDownload(), d.promptMode(), d.corpus(), seed,
                d.inputLengths(), d.outputLengths(), d.dataset(), d.datasetPromptTokens(), d.datasetOutputTokens(),
                d.prompt(), d.maxTokens(), d.scenario(), d.scenarioLang(), d.prefixTokens(), d.saveWorkload(),
                d.workload(), d.sessions(), d.images());
        return WorkloadSource.resolve(spec, 5, Map.of(), QUIET);
    }

    private static List<String> prompts(List<RequestSpec> specs) {
        return specs.stream().map(RequestSpec::prompt).toList();
    }

    @Test
    void everyLevelForkAndModelDrawsPromptsOfItsOwnFromTheSeed() {
        WorkloadSource w = synthetic(11111);
        assertTrue(w.drawsFresh());
        assertSame(w.requests(), w.draw(11111, 0, 0), "a plain run sends the prompts of --seed itself");
        assertEquals(11111, WorkloadSource.drawSeed(11111, 0, 0));

        Set<String> seen = new HashSet<>(prompts(w.requests()));
        for (int[] at : new int[][] {{1, 0}, {2, 0}, {0, 1}, {1, 1}}) {
            List<RequestSpec> drawn = w.draw(11111, at[0], at[1]);
            assertEquals(5, drawn.size());
            for (String p : prompts(drawn)) assertTrue(seen.add(p), "prompt repeated at " + List.of(at[0], at[1]));
        }
        // a rerun with the same --seed draws the same prompts at each level
        assertEquals(prompts(w.draw(11111, 1, 0)), prompts(synthetic(11111).draw(11111, 1, 0)));
        assertNotEquals(prompts(w.draw(11111, 1, 0)), prompts(synthetic(7).draw(7, 1, 0)));
    }

    @Test
    void aWorkloadBuiltToShareIsTheSameAtEveryLevel() {
        WorkloadSpec d = WorkloadSpec.llmperfDefaults();
        WorkloadSpec prefixed = new WorkloadSpec(d.meanInputTokens(), d.stddevInputTokens(), d.meanOutputTokens(),
                d.stddevOutputTokens(), d.tokenizer(), d.allowDownload(), d.promptMode(), d.corpus(), d.seed(),
                d.inputLengths(), d.outputLengths(), d.dataset(), d.datasetPromptTokens(), d.datasetOutputTokens(),
                d.prompt(), d.maxTokens(), d.scenario(), d.scenarioLang(), 64, d.saveWorkload(), d.workload(),
                d.sessions(), d.images());
        WorkloadSource w = WorkloadSource.resolve(prefixed, 5, Map.of(), QUIET);
        assertFalse(w.drawsFresh());
        assertSame(w.requests(), w.draw(d.seed(), 2, 3));
    }
}
