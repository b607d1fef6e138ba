/**
 * Request traces of real services (Mooncake JSONL, Azure LLM inference CSV, BurstGPT CSV): reading, statistics,
 * prompts.
 */
package io.llmperf4j.datasets.trace;
