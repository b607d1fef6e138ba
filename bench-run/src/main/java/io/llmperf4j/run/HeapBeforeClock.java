package io.llmperf4j.run;

/**
 * A full collection before a level's clock starts, as JMH's {@code -gc true} runs one between iterations. The client
 * warm-up and the levels before leave the old generation close to full (the launcher's 4 MB young generation promotes
 * much of their garbage), and the full collection that then came due inside the level stopped the pacer and every I/O
 * thread for 12-25 ms: in 2 of 6 open-loop runs at 200 requests a second the send lag's p99.9 was 13-21 ms, against
 * 2.7-4.4 ms in the others. Taken here it costs a few tens of milliseconds outside every figure, and no peak RSS.
 * {@code -XX:+DisableExplicitGC} in {@code LLMPERF4J_JAVA_OPTS} turns it off.
 */
final class HeapBeforeClock {

    private HeapBeforeClock() {
    }

    static void collect() {
        System.gc();
    }
}
