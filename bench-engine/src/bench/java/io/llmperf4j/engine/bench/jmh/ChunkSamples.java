package io.llmperf4j.engine.bench.jmh;

/** Event data as servers send it, one token per event. */
final class ChunkSamples {

    private static final String[] WORDS = {" the", " quick", " brown", " fox", " jumps", " over", " a", " lazy",
        " dog", ",", " and", " then", " some", " more", " text", "."};

    private ChunkSamples() {
    }

    /** A vLLM-style {@code chat.completion.chunk} carrying token {@code i}. */
    static String chatChunk(int i) {
        return "{\"id\":\"chatcmpl-8f3a2b\",\"object\":\"chat.completion.chunk\",\"created\":1733155200,"
                + "\"model\":\"meta-llama/Llama-2-7b-chat-hf\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                + WORDS[i % WORDS.length] + "\"},\"logprobs\":null,\"finish_reason\":null}]}";
    }

    /** An Anthropic {@code content_block_delta} carrying token {@code i}. */
    static String anthropicDelta(int i) {
        return "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\""
                + WORDS[i % WORDS.length] + "\"}}";
    }
}
