package io.llmperf4j.server;

import java.util.ArrayDeque;

/**
 * The server-wide limit on sequences generated at once ({@code maxConcurrentSequences}); requests beyond it
 * wait in arrival order. Shared by all I/O threads, so guarded by this object's lock (held only for a few
 * field updates, never while calling out).
 */
final class SequenceSlots {

    /** A queued request; {@link #onSlotGranted()} may be called on any thread. */
    interface Waiter {
        /** Takes the slot and returns true, or returns false when it cannot (its event loop is shutting down). */
        boolean onSlotGranted();
    }

    private final ArrayDeque<Waiter> waiting = new ArrayDeque<>();
    private int freeSlots;

    SequenceSlots(int slots) {
        this.freeSlots = slots;
    }

    /** Takes a slot and returns true, or queues {@code waiter} (told later) and returns false. */
    synchronized boolean acquireOrWait(Waiter waiter) {
        if (freeSlots > 0) {
            freeSlots--;
            return true;
        }
        waiting.addLast(waiter);
        return false;
    }

    /**
     * Removes a queued waiter. Returns false when it was no longer queued: its grant is then already under way
     * and the waiter must hand the slot back with {@link #release()}.
     */
    synchronized boolean cancel(Waiter waiter) {
        return waiting.remove(waiter);
    }

    /** Frees a slot, or passes it straight to the longest-waiting request that can take it. */
    void release() {
        while (true) {
            Waiter next;
            synchronized (this) {
                next = waiting.pollFirst();
                if (next == null) {
                    freeSlots++;
                    return;
                }
            }
            if (next.onSlotGranted()) return; // called without the lock: it may hop threads
        }
    }

    synchronized int queued() {
        return waiting.size();
    }

    synchronized int free() {
        return freeSlots;
    }
}
