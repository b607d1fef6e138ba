package io.llmperf4j.run;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static io.llmperf4j.run.CompilerSettling.SPAN_NANOS;
import static io.llmperf4j.run.CompilerSettling.Verdict.BUSY;
import static io.llmperf4j.run.CompilerSettling.Verdict.SETTLED;
import static io.llmperf4j.run.CompilerSettling.Verdict.SPAN_OPEN;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Spans of load judged by the compilers' share of them, on a clock and compiler time the test moves. */
class CompilerSettlingTest {
    private final AtomicLong clock = new AtomicLong(1_000);
    private final AtomicLong compiled = new AtomicLong(7_000);
    private final CompilerSettling settling = new CompilerSettling(clock::get, compiled::get);

    @Test
    void aSpanShorterThanItsLengthIsNotJudgedYet() {
        clock.addAndGet(SPAN_NANOS - 1);
        assertEquals(SPAN_OPEN, settling.look());
        clock.addAndGet(1);
        assertEquals(SETTLED, settling.look(), "no compilation in a whole span");
    }

    @Test
    void compilersAboveTheShareAreBusyAndTheNextSpanStartsAfresh() {
        clock.addAndGet(SPAN_NANOS);
        compiled.addAndGet(SPAN_NANOS / 2);
        assertEquals(BUSY, settling.look());

        clock.addAndGet(SPAN_NANOS / 2);
        assertEquals(SPAN_OPEN, settling.look(), "the span after the judged one has its own start");
        clock.addAndGet(SPAN_NANOS / 2);
        compiled.addAndGet(SPAN_NANOS / 10);
        assertEquals(SETTLED, settling.look(), "10 % of the new span only: the earlier compilation does not count");
    }

    @Test
    void theShareIsOfTheWholeElapsedSpanAtItsLimit() {
        clock.addAndGet(2 * SPAN_NANOS);
        compiled.addAndGet((long) (CompilerSettling.SETTLED_SHARE * 2 * SPAN_NANOS));
        assertEquals(SETTLED, settling.look(), "exactly the share counts as settled");

        clock.addAndGet(2 * SPAN_NANOS);
        compiled.addAndGet((long) (CompilerSettling.SETTLED_SHARE * 2 * SPAN_NANOS) + 1);
        assertEquals(BUSY, settling.look());
    }
}
