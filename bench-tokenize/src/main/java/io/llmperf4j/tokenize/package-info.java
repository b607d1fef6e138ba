/**
 * Counting tokens: the {@code Tokenizer} interface and its sources ({@code Tokenizers} picks one from a
 * {@code TokenizerSpec}): the built-in Llama-2 tokenizer (encoded in Java by {@code LlamaBpeTokenizer}, with DJL
 * for special tokens and decoding), any HuggingFace {@code tokenizer.json} through DJL, jtokkit encodings, or the
 * server usage.
 */
package io.llmperf4j.tokenize;
