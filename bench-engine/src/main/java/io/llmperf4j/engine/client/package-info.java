/**
 * The client API: {@link io.llmperf4j.engine.client.LlmClient} sends a
 * {@link io.llmperf4j.model.RequestSpec} and hands back a {@link io.llmperf4j.engine.client.RequestHandle} whose
 * completion is always a {@link io.llmperf4j.model.RequestRecord}. {@link io.llmperf4j.engine.client.NettyLlmClient}
 * is the OpenAI chat completions implementation, configured by an immutable
 * {@link io.llmperf4j.engine.client.ClientConfig}. Netty stays in {@code client.impl}.
 */
package io.llmperf4j.engine.client;
