package io.llmperf4j.engine.client;

/**
 * The requests a client has in flight and those among them still waiting for their response headers, with when the
 * oldest of these was sent: what a progress line says while a server is silent (QA: a server that accepted the
 * connections and never answered gave 90 s without a line).
 *
 * @param inFlight         requests whose record is not complete yet
 * @param waiting          those among them whose response headers have not come
 * @param oldestStartNanos the earliest start ({@link System#nanoTime()}) among the waiting ones; 0 when none waits
 */
public record HeaderWait(int inFlight, int waiting, long oldestStartNanos) {

    /** Nothing in flight. */
    public static final HeaderWait NONE = new HeaderWait(0, 0, 0);
}
