package io.llmperf4j.engine.protocol;

/**
 * Interprets the data of one SSE event of a streaming LLM API. Implementations are stateless and thread-safe;
 * they run on worker threads, never on I/O threads.
 */
@FunctionalInterface
public interface ChunkParser {
    /**
     * @param data the event's data bytes (UTF-8), {@code [DONE]} never included
     * @return what the event carries
     * @throws MalformedChunkException when the data is not a chunk of this API
     */
    ParsedChunk parse(byte[] data) throws MalformedChunkException;
}
