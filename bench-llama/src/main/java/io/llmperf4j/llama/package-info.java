/**
 * A real inference engine for tests and local runs: llama.cpp in this JVM ({@link io.llmperf4j.llama.LlamaEngine},
 * de.kherud:llama, one decoding thread), served by bench-server's OpenAI-compatible front
 * ({@link io.llmperf4j.llama.LlamaServer}), and a generated tiny GGUF model with the Llama-2 vocabulary
 * ({@link io.llmperf4j.llama.TinyLlamaModel}, written by {@code GgufWriter}) whose output is known token by token.
 *
 * <p>llama.cpp's native library is extracted into a private folder ({@code NativeLibraryFolder}), never into the
 * shared temporary folder, where the binding's loader would delete the user's files named {@code llama*}.
 */
package io.llmperf4j.llama;
