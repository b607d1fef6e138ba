package io.llmperf4j.engine.protocol;

import java.util.Arrays;

/**
 * Interprets the data of one SSE event of a streaming LLM API. Implementations are stateless and thread-safe;
 * they run on the I/O thread that decoded the event, after its arrival stamp, so they must be quick and never block.
 */
@FunctionalInterface
public interface ChunkParser {
    /**
     * @param data the event's data bytes (UTF-8), {@code [DONE]} never included
     * @return what the event carries
     * @throws MalformedChunkException when the data is not a chunk of this API
     */
    ParsedChunk parse(byte[] data) throws MalformedChunkException;

    /**
     * The same with the SSE {@code event:} name, for APIs whose events are typed by it (Anthropic). The engine calls
     * this one; the default ignores the name.
     *
     * @param eventType the value of the event's {@code event:} line, or null when it had none (and for a whole
     *                  non-streaming response body)
     */
    default ParsedChunk parse(String eventType, byte[] data) throws MalformedChunkException {
        return parse(data);
    }

    /**
     * The same with the data lent: bytes {@code [from, to)} of {@code data}, read during the call only, never kept
     * (the engine calls this one for streamed events). The default copies them; a parser that can read a range in
     * place overrides it.
     */
    default ParsedChunk parse(String eventType, byte[] data, int from, int to) throws MalformedChunkException {
        return parse(eventType, from == 0 && to == data.length ? data : Arrays.copyOfRange(data, from, to));
    }

    /**
     * The parser for the events of one stream, in order, on one thread at a time: it may remember what it learnt
     * from the stream's earlier events to parse the next ones faster, always with the same results as this parser.
     * The default is this parser itself.
     */
    default ChunkParser forStream() {
        return this;
    }
}
