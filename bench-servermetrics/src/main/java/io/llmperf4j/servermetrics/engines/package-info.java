/**
 * Which families an LLM server exposes and what each means: one table, {@link
 * io.llmperf4j.servermetrics.engines.KnownFamilies}, of (engine, role, family) rows for vLLM, SGLang, TGI and llama.cpp,
 * newest names first. Every other family is kept raw in the timeline and the CSV.
 */
package io.llmperf4j.servermetrics.engines;
