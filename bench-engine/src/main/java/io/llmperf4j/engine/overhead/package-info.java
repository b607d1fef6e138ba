/**
 * The client watching itself: {@link io.llmperf4j.engine.overhead.ClientOverheadMonitor} measures event-loop lag,
 * I/O-thread busy share, GC and process CPU during each run, so a report can say when the client, not the server,
 * limited the numbers.
 */
package io.llmperf4j.engine.overhead;
