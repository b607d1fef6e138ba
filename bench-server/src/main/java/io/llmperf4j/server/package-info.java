/**
 * The embedded OpenAI-compatible server. {@link io.llmperf4j.server.SimulatedServer} simulates an LLM with exact,
 * configurable timing ({@link io.llmperf4j.server.SimulatorConfig}), simulated EOS, reasoning tokens, embeddings and
 * injected faults ({@link io.llmperf4j.server.FaultPlan}, {@link io.llmperf4j.server.FaultKind});
 * {@link io.llmperf4j.server.EngineServer} puts the same front in front of a real
 * {@link io.llmperf4j.server.GenerationEngine} (llama.cpp in {@code bench-llama}).
 *
 * <p>Inside, one connection flows through the front ({@code OpenAiHandler}: routing, authentication, the request
 * parsers, errors in each API's dialect, pipelining), then either the simulator's {@code Generation} (sequence
 * slots, the chunk schedule, faults) or {@code EngineResponse} (an engine's text as it comes); both write with the
 * same {@code ResponseEncoder}s: {@code ChunkEncoder} for OpenAI / vLLM, {@code AnthropicEncoder} for Anthropic
 * Messages.
 */
package io.llmperf4j.server;
