package io.llmperf4j.datasets;

import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class CorrectnessPromptsTest {

    @Test
    void numbersAreCPythonsRandintAfterSeeding() {
        // CPython 3.11: random.seed(11111); [random.randint(0, 10000) for _ in range(12)]
        assertEquals(List.of(5388, 431, 5849, 5906, 6565, 1842, 8343, 2797, 2133, 5896, 5465, 6110),
                CorrectnessPrompts.generate(11111, 12).stream().map(CorrectnessPrompts.Item::number).toList());
        // random.seed(42); [random.randint(0, 10000) for _ in range(5)]
        assertEquals(List.of(1824, 409, 4506, 4012, 3657),
                CorrectnessPrompts.generate(42, 5).stream().map(CorrectnessPrompts.Item::number).toList());
    }

    @Test
    void promptIsLlmperfsTextAndTheRequestHasNoMaxTokens() {
        CorrectnessPrompts.Item item = CorrectnessPrompts.generate(11111, 2).get(1);
        assertEquals(1, item.index());
        assertEquals("four hundred and thirty-one", item.words());
        assertEquals("Convert the following sequence of words into a number: four hundred and thirty-one.\n"
                + "Print the number first.", item.prompt());
        assertEquals(new RequestSpec(1, item.prompt(), 0, RequestSpec.NO_MAX_TOKENS), item.toRequestSpec());
    }

    @Test
    void sameSeedSameWorkload() {
        assertEquals(CorrectnessPrompts.generate(7, 50), CorrectnessPrompts.generate(7, 50));
        assertThrows(IllegalArgumentException.class, () -> CorrectnessPrompts.generate(7, 0));
    }
}
