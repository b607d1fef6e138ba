/**
 * vLLM-named Prometheus text for a simulated server: {@link io.llmperf4j.servermetrics.vllm.VllmMetricsExposition}
 * takes the simulator's true counts and observations and renders {@code /metrics} as vLLM V1 serves it, so the
 * scraper, the summary and the report are tested end to end against values known exactly.
 */
package io.llmperf4j.servermetrics.vllm;
