/**
 * Netty internals of {@link io.llmperf4j.engine.client.NettyLlmClient}. Public only so that the client package
 * can reach them; not an API. Threading: {@link io.llmperf4j.engine.client.impl.Exchange} I/O state lives on its
 * channel's event loop; {@link io.llmperf4j.engine.client.impl.RecordAssembler} lives on a worker, reached through a
 * per-request {@link io.llmperf4j.engine.client.impl.SerialExecutor}, so JSON parsing never runs on I/O threads and
 * events of one request are handled in order.
 */
package io.llmperf4j.engine.client.impl;
