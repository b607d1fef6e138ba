/**
 * How the built-in Llama-2 tokenizer is made at build time: the npm package {@code llama-tokenizer-js} is fetched
 * ({@code NpmPack}) and converted into a HuggingFace {@code tokenizer.json} ({@code LlamaTokenizerJsConverter});
 * {@code BuiltInLlama2} finds it on the classpath.
 */
package io.llmperf4j.tokenize.llama;
