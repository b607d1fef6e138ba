/**
 * Server-Sent Events decoding on bytes, independent of any HTTP API: {@link io.llmperf4j.engine.sse.SseDecoder}
 * turns arbitrarily split byte buffers into {@link io.llmperf4j.engine.sse.SseEvent}s stamped with the arrival time
 * of their last bytes. What an event means is the job of {@code io.llmperf4j.engine.protocol}.
 */
package io.llmperf4j.engine.sse;
