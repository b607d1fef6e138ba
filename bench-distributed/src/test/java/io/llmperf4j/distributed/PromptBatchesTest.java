package io.llmperf4j.distributed;

import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The coordinator draws the batches ahead: batch 1 when the run opens, batch k + 1 once batch k is handed out, one
 * at a time and in order, never more than one beyond the last taken, and each once.
 */
@Timeout(30)
class PromptBatchesTest {

    /** Batch k dealt to two workers: one request each, named after the batch and the worker. */
    private static List<List<RequestSpec>> dealt(int k) {
        List<List<RequestSpec>> parts = new ArrayList<>();
        for (int slice = 0; slice < 2; slice++) parts.add(List.of(new RequestSpec(slice, k + "/" + slice, 5, 2)));
        return parts;
    }

    @Test
    void eachBatchIsDrawnOnceAheadOfTheWorkersAskingForIt() throws InterruptedException {
        BlockingQueue<Integer> draws = new LinkedBlockingQueue<>();
        PromptBatches batches = new PromptBatches();
        batches.open("run", 2, k -> {
            draws.add(k);
            return dealt(k);
        });
        try {
            assertEquals(1, draws.take(), "batch 1 drawn as the run opens, before any worker asks");

            assertEquals("1/0", batches.take("run", 0, 1, 1).get(0).get(0).prompt());
            assertEquals(2, draws.take(), "batch 2 drawn once batch 1 is handed out");
            assertEquals("1/1", batches.take("run", 1, 1, 1).get(0).get(0).prompt());
            assertEquals("2/1", batches.take("run", 1, 2, 1).get(0).get(0).prompt());
            // draws are made one at a time, in order: 3 is the next, nothing came between (2 was drawn once)
            assertEquals(3, draws.take(), "batch 3 drawn once batch 2 is handed out");
            assertEquals(List.of(), List.copyOf(draws), "no batch beyond the one ahead, none twice");
            assertEquals("2/0", batches.take("run", 0, 2, 1).get(0).get(0).prompt());
            assertEquals(List.of("3/0", "4/0"), batches.take("run", 0, 3, 2).stream()
                    .map(part -> part.get(0).prompt()).toList());
            assertEquals(4, draws.take());
            assertEquals(5, draws.take(), "batch 5 drawn once batch 4 is handed out");
            assertEquals(List.of(), List.copyOf(draws));
        } finally {
            batches.close("run");
        }
        assertThrows(IllegalStateException.class, () -> batches.take("run", 0, 5, 1));
    }

    @Test
    void aBatchThatCannotBeDrawnFailsTheTakeWithTheDrawersError() {
        PromptBatches batches = new PromptBatches();
        batches.open("run", 2, k -> {
            throw new IllegalStateException("no prompts for batch " + k);
        });
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> batches.take("run", 0, 1, 1));
            assertEquals("no prompts for batch 1", e.getMessage());
        } finally {
            batches.close("run");
        }
    }
}
