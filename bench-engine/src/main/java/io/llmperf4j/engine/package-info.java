/**
 * The load engine: a Netty streaming client for OpenAI-compatible chat completions ({@code client}), a byte-level
 * Server-Sent Events decoder ({@code sse}), the interpretation of streamed chunks ({@code protocol}), load models
 * that drive the client ({@code load}: closed and open loops, sweeps, the saturation verdict) and JMH-style
 * iterations ({@code harness}). {@link io.llmperf4j.engine.Benchmark} is the Java API over all of them. Every request
 * ends as exactly one {@link io.llmperf4j.model.RequestRecord}; failures are data, never exceptions.
 */
package io.llmperf4j.engine;
