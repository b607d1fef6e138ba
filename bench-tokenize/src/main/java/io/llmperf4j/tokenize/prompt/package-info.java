/**
 * Prompts of a given token length, as llmperf makes them: CPython-compatible random numbers ({@code PythonRandom}),
 * length distributions, corpus lines, and llmperf's prompt algorithm or an exact fit to the sampled length.
 */
package io.llmperf4j.tokenize.prompt;
