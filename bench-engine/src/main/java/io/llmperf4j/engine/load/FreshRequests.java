package io.llmperf4j.engine.load;

import io.llmperf4j.model.Fnv1a;
import io.llmperf4j.model.RequestSpec;

import java.util.AbstractList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * A workload whose every send is a request of its own, for runs that send for a time rather than a count (a harness
 * fork's continuous load): the n-th request a run sends is the n-th of an endless sequence, drawn batch by batch
 * (batch 0 is {@link #get this list itself}, batch k a pure function of k, e.g. the same synthetic workload drawn from
 * a seed mixed with k), so the same seed sends the same sequence again and no prompt comes back for the server's
 * prefix cache to serve. A prompt text already drawn in the sequence is skipped; should the lengths allow too few
 * distinct texts (fewer than half of a block of {@value #DEDUP_BLOCK} draws new), repeats are let through and counted.
 *
 * <p>As a list it is its first batch, so code that reads a workload as a list (its size, a cluster's workers) sees
 * what it saw before. {@link ClosedLoopRunner} and {@link OpenLoopRunner} see it and take each send's request from
 * a {@link Supply} instead of cycling through the list. Drawing a prompt costs 0.05-0.7 ms (llmperf's prompt of 500
 * to 4,000 tokens counted with Llama-2's tokenizer), too much for the send path (a closed loop re-sends on the
 * client's I/O thread, inside the next request's TTFT): the supply draws ahead on a thread of its own and fills its
 * first {@code ahead} before the run's clock starts; a send that finds none ready waits for one and is counted.
 */
public final class FreshRequests extends AbstractList<RequestSpec> {

    /** Draws are checked for repeats in blocks of this many. */
    static final int DEDUP_BLOCK = 64;

    private final List<RequestSpec> first;
    private final IntFunction<List<RequestSpec>> batches;
    private final Consumer<Tally> tallies;
    /** Requests keep the indices they were drawn with instead of being numbered by their place in the sequence. */
    private final boolean keepIndices;

    /**
     * @param first   batch 0: the workload as a list
     * @param batches batch k (k &gt;= 1): the same for the same k, non-empty
     * @param notices told, at the end of a run, when sends waited for a draw or prompts repeated (one line each)
     */
    public FreshRequests(List<RequestSpec> first, IntFunction<List<RequestSpec>> batches, Consumer<String> notices) {
        this(first, batches, linesTo(notices), false);
    }

    private FreshRequests(List<RequestSpec> first, IntFunction<List<RequestSpec>> batches, Consumer<Tally> tallies,
                          boolean keepIndices) {
        this.first = List.copyOf(first);
        if (this.first.isEmpty()) throw new IllegalArgumentException("a workload needs at least one request");
        this.batches = Objects.requireNonNull(batches, "batches");
        this.tallies = Objects.requireNonNull(tallies, "tallies");
        this.keepIndices = keepIndices;
    }

    /**
     * A cluster worker's part of a sequence its coordinator numbered and deals out: its requests keep their indices
     * (unique across the workers), and each run's {@link Tally} goes to {@code tallies}, for the coordinator to sum
     * over the workers and {@link #tell} its own sequence's notices once.
     */
    public static FreshRequests part(List<RequestSpec> first, IntFunction<List<RequestSpec>> batches,
                                     Consumer<Tally> tallies) {
        return new FreshRequests(first, batches, tallies, true);
    }

    /** Tells this sequence's notices what runs of it elsewhere found: a cluster's workers' tallies, summed. */
    public void tell(Tally tally) {
        tallies.accept(tally);
    }

    private static Consumer<Tally> linesTo(Consumer<String> notices) {
        Objects.requireNonNull(notices, "notices");
        return tally -> tally.notices().forEach(notices);
    }

    @Override
    public RequestSpec get(int index) {
        return first.get(index);
    }

    @Override
    public int size() {
        return first.size();
    }

    /**
     * Batch {@code k} of the sequence as drawn, before repeats are skipped and requests renumbered: this list for 0.
     * A cluster's coordinator deals each batch out between its workers, whose own sequences are their parts.
     */
    public List<RequestSpec> batch(int k) {
        if (k < 0) throw new IllegalArgumentException("batch " + k + " does not exist");
        return k == 0 ? first : batches.apply(k);
    }

    /**
     * The sequence from its start for one run: draws the first {@code ahead} on the calling thread (before the run's
     * clock), then keeps {@code ahead} ready on a thread of its own until closed.
     *
     * @param ahead requests kept ready, &gt;= 1: enough for the sends of a burst (a closed loop's wave of ends)
     */
    public Supply open(int ahead) {
        return new Supply(ahead);
    }

    /**
     * What one run's sequence found, told at its end: sends that waited for a draw, and prompts that repeated.
     *
     * @param sends     requests taken
     * @param waits     sends that found none ready and waited for the drawer
     * @param waitNanos the time they waited, in all
     * @param drawn     requests drawn (ready ahead, taken or not)
     * @param repeats   of those, requests whose prompt text an earlier one had
     */
    public record Tally(int sends, int waits, long waitNanos, int drawn, int repeats) {
        /** This and {@code other} together: runs of one sequence on several workers. */
        public Tally plus(Tally other) {
            return new Tally(sends + other.sends, waits + other.waits, waitNanos + other.waitNanos,
                    drawn + other.drawn, repeats + other.repeats);
        }

        /** The lines the run should hear: one when sends waited, one when prompts repeated; none otherwise. */
        public List<String> notices() {
            List<String> lines = new ArrayList<>(2);
            if (waits > 0) {
                lines.add(String.format(Locale.ROOT, "llmperf4j: prompts: %d of %d sends waited for a fresh "
                        + "prompt to be drawn (%.1f ms in all): drawing fell behind the request rate", waits, sends,
                        waitNanos / 1e6));
            }
            if (repeats > 0) {
                lines.add("llmperf4j: prompts: these lengths give too few distinct synthetic prompts: " + repeats
                        + " of the " + drawn + " drawn repeated an earlier one (the server's prefix cache can "
                        + "serve those)");
            }
            return lines;
        }
    }

    /** The draws ready ahead for a run that can have {@code concurrent} sends at once. */
    static int aheadFor(int concurrent) {
        return 2 * Math.max(1, concurrent) + DEDUP_BLOCK;
    }

    /** One run's sequence. {@link #next} from any thread, one at a time or not; close it when the run ends. */
    public final class Supply implements AutoCloseable {
        private final int ahead;
        private final Thread drawer;
        // the drawer's own (the calling thread's while open() fills the first ones)
        private final Set<Long> seen = new HashSet<>();
        private List<RequestSpec> batch = first;
        private int batchIndex;
        private int inBatch;
        private int blockDrawn;
        private int blockNew;
        private boolean repeatsAllowed;
        private boolean lastRepeated;
        private int position;
        // guarded by this
        private final ArrayDeque<RequestSpec> ready = new ArrayDeque<>();
        private boolean closed;
        private RuntimeException failure;
        private int taken;
        private int drawn;
        private int repeats;
        private int waits;
        private long waitNanos;

        private Supply(int ahead) {
            if (ahead < 1) throw new IllegalArgumentException("ahead (" + ahead + ") must be >= 1");
            this.ahead = ahead;
            synchronized (this) {
                for (int i = 0; i < ahead; i++) keep(draw());
            }
            drawer = new Thread(this::drawAhead, "llmperf4j-prompts");
            drawer.setDaemon(true);
            drawer.start();
        }

        /** The next request of the sequence; waits when none is drawn yet (counted, and told at the end). */
        public synchronized RequestSpec next() {
            RequestSpec spec = ready.poll();
            if (spec == null) {
                long start = System.nanoTime();
                while ((spec = ready.poll()) == null) {
                    if (failure != null) throw failure;
                    if (closed) throw new IllegalStateException("the request supply is closed");
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted while a request was drawn", e);
                    }
                }
                waits++;
                waitNanos += System.nanoTime() - start;
            }
            taken++;
            notifyAll(); // the drawer refills
            return spec;
        }

        /**
         * The next request when one is drawn, else null at once (nothing counted): a send that must not wait where it
         * is (holding a lock the other sends need, on an I/O thread) asks again later with {@link #pollWaited}.
         */
        public synchronized RequestSpec poll() {
            RequestSpec spec = ready.poll();
            if (spec != null) {
                taken++;
                notifyAll(); // the drawer refills
            }
            return spec;
        }

        /**
         * For a send that found none ready at {@code sinceNanos} ({@link #poll}): the next request when one is drawn
         * by now, counted as one wait from {@code sinceNanos} as {@link #next} counts its own; else null at once.
         *
         * @throws RuntimeException what the drawer threw
         */
        public synchronized RequestSpec pollWaited(long sinceNanos) {
            RequestSpec spec = ready.poll();
            if (spec == null) {
                if (failure != null) throw failure;
                return null;
            }
            waits++;
            waitNanos += System.nanoTime() - sinceNanos;
            taken++;
            notifyAll(); // the drawer refills
            return spec;
        }

        /** Closed: no more requests will be drawn. */
        public synchronized boolean isClosed() {
            return closed;
        }

        /** Requests taken so far. */
        public synchronized int taken() {
            return taken;
        }

        /** Requests drawn whose prompt text an earlier one had (the lengths allow too few distinct texts). */
        public synchronized int repeats() {
            return repeats;
        }

        /** Sends that found no request ready and waited for the drawer. */
        public synchronized int waits() {
            return waits;
        }

        /** Ends the drawer; tells the run's {@link Tally} (the notices: what the run should know, waits, repeats). */
        @Override
        public void close() {
            Tally tally;
            synchronized (this) {
                if (closed) return;
                closed = true;
                notifyAll();
                tally = new Tally(taken, waits, waitNanos, drawn, repeats);
            }
            tallies.accept(tally);
        }

        private void drawAhead() {
            try {
                while (true) {
                    synchronized (this) {
                        while (!closed && ready.size() >= ahead) wait();
                        if (closed) return;
                    }
                    RequestSpec spec = draw(); // outside the lock: the costly part
                    synchronized (this) {
                        keep(spec);
                        notifyAll();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                synchronized (this) {
                    failure = e;
                    notifyAll();
                }
            }
        }

        /** Makes the last drawn request ready (holding this lock). */
        private void keep(RequestSpec spec) {
            ready.add(spec);
            drawn++;
            if (lastRepeated) repeats++;
        }

        /**
         * The sequence's next request, renumbered to its position (a {@link FreshRequests#part} keeps its coordinator's number);
         * skips repeats while enough are new.
         */
        private RequestSpec draw() {
            while (true) {
                if (inBatch == batch.size()) {
                    batch = batches.apply(++batchIndex);
                    if (batch == null || batch.isEmpty()) {
                        throw new IllegalStateException("batch " + batchIndex + " of the workload is empty");
                    }
                    inBatch = 0;
                }
                RequestSpec spec = batch.get(inBatch++);
                boolean isNew = seen.add(Fnv1a.hash(spec.prompt()));
                if (++blockDrawn == DEDUP_BLOCK) {
                    if (blockNew + (isNew ? 1 : 0) < DEDUP_BLOCK / 2) repeatsAllowed = true;
                    blockDrawn = 0;
                    blockNew = 0;
                } else if (isNew) {
                    blockNew++;
                }
                if (!isNew && !repeatsAllowed) continue;
                lastRepeated = !isNew;
                if (keepIndices) return spec;
                return new RequestSpec(position++, spec.prompt(), spec.numberInputTokens(), spec.maxTokens(),
                        spec.inputs());
            }
        }
    }
}
