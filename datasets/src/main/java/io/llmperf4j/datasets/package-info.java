/**
 * Where prompts come from: the synthetic workload over a corpus, ShareGPT, JSONL prompt lists, a fixed prompt, the
 * T1-T4 scenarios, shared prefixes, and the number words of llmperf's correctness test. Each is a
 * {@code Workload}.
 */
package io.llmperf4j.datasets;
