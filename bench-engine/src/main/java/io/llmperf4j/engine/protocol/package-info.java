/**
 * What the events of a streaming LLM API mean. {@link io.llmperf4j.engine.protocol.ChunkParser} is the seam: one
 * class per API ({@link io.llmperf4j.engine.protocol.ChatCompletionChunkParser} for OpenAI chat and text completions,
 * {@link io.llmperf4j.engine.protocol.AnthropicEventParser}, {@link io.llmperf4j.engine.protocol.EmbeddingsResponseParser}) decides
 * what is content, finish reason, usage and error; everything else in the engine is API-neutral.
 */
package io.llmperf4j.engine.protocol;
