package io.llmperf4j.server;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SequenceSlotsTest {

    private final List<String> granted = new ArrayList<>();

    private SequenceSlots.Waiter waiter(String name, boolean accepts) {
        return () -> {
            if (accepts) granted.add(name);
            return accepts;
        };
    }

    @Test
    void grantsInArrivalOrderOnceSlotsAreFull() {
        SequenceSlots slots = new SequenceSlots(2);
        assertTrue(slots.acquireOrWait(waiter("a", true)));
        assertTrue(slots.acquireOrWait(waiter("b", true)));
        assertFalse(slots.acquireOrWait(waiter("c", true)));
        assertFalse(slots.acquireOrWait(waiter("d", true)));
        assertEquals(2, slots.queued());

        slots.release();
        slots.release();
        assertEquals(List.of("c", "d"), granted, "freed slots go straight to the waiters, FIFO");
        assertEquals(0, slots.free());
        slots.release();
        slots.release();
        assertEquals(2, slots.free());
    }

    @Test
    void cancelledAndRefusingWaitersAreSkipped() {
        SequenceSlots slots = new SequenceSlots(1);
        assertTrue(slots.acquireOrWait(waiter("a", true)));
        SequenceSlots.Waiter cancelled = waiter("cancelled", true);
        slots.acquireOrWait(cancelled);
        slots.acquireOrWait(waiter("refuses", false));
        slots.acquireOrWait(waiter("e", true));
        assertTrue(slots.cancel(cancelled));
        assertFalse(slots.cancel(cancelled), "already gone");

        slots.release();
        assertEquals(List.of("e"), granted);
        assertEquals(0, slots.queued());
        assertEquals(0, slots.free());
    }
}
