package io.llmperf4j.tokenize;

import java.util.Arrays;

/** A min-heap of (rank, position) packed in longs, so the order is rank first, then position. Reusable. */
final class LongHeap {
    private long[] heap;
    private int size;

    LongHeap(int capacity) {
        heap = new long[Math.max(4, capacity)];
    }

    boolean isEmpty() {
        return size == 0;
    }

    void clear() {
        size = 0;
    }

    /** Empties the heap, and gives back its array when it grew beyond {@code keep} entries. */
    void clear(int keep) {
        size = 0;
        if (heap.length > keep) heap = new long[Math.max(4, keep)];
    }

    void push(int rank, int pos) {
        if (size == heap.length) heap = Arrays.copyOf(heap, size * 2);
        long value = ((long) rank << 32) | pos;
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] <= value) break;
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = value;
    }

    long pop() {
        long top = heap[0];
        long last = heap[--size];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= size) break;
            if (child + 1 < size && heap[child + 1] < heap[child]) child++;
            if (heap[child] >= last) break;
            heap[i] = heap[child];
            i = child;
        }
        if (size > 0) heap[i] = last;
        return top;
    }

    static int rank(long entry) {
        return (int) (entry >>> 32);
    }

    static int position(long entry) {
        return (int) entry;
    }
}
