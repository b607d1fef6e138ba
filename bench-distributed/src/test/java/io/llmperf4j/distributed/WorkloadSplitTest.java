package io.llmperf4j.distributed;

import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class WorkloadSplitTest {

    @Test
    void evenSharesDifferByAtMostOneLargerFirst() {
        assertArrayEquals(new int[] {4, 3, 3}, WorkloadSplit.evenly(10, 3));
        assertArrayEquals(new int[] {1, 1, 0}, WorkloadSplit.evenly(2, 3));
    }

    @Test
    void proportionalSharesAddUpExactly() {
        assertArrayEquals(new int[] {40, 30, 30}, WorkloadSplit.proportional(100, new int[] {4, 3, 3}));
        assertArrayEquals(new int[] {4, 3, 3}, WorkloadSplit.proportional(10, new int[] {1, 1, 1}));
    }

    @Test
    void everySpecGoesToExactlyOneWorkerInterleaved() {
        List<RequestSpec> specs = new ArrayList<>();
        for (int i = 0; i < 7; i++) specs.add(new RequestSpec(i, "p" + i, 10, 5));
        List<List<RequestSpec>> parts = WorkloadSplit.specs(specs, new int[] {3, 2, 2});
        assertEquals(List.of(0, 3, 6), parts.get(0).stream().map(RequestSpec::index).toList());
        assertEquals(List.of(1, 4), parts.get(1).stream().map(RequestSpec::index).toList());
        assertEquals(List.of(2, 5), parts.get(2).stream().map(RequestSpec::index).toList());
        assertThrows(IllegalArgumentException.class, () -> WorkloadSplit.specs(specs, new int[] {3, 3}));
    }
}
