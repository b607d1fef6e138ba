/**
 * Load models that drive an {@link io.llmperf4j.engine.client.LlmClient}. {@link io.llmperf4j.engine.load.ClosedLoopRunner}
 * is llmperf's closed loop (N users re-sending immediately), without its over-issue and with every outcome recorded.
 */
package io.llmperf4j.engine.load;
