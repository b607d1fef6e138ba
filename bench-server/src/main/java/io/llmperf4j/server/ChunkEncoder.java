package io.llmperf4j.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * Writes one request's response JSON the way vLLM does: SSE events ({@code data: {json}\n\n}) for streams,
 * one object otherwise. Every event of a stream repeats the same id, object, created and model.
 * Several events go through one generator into one buffer, so a batch of due chunks costs one write.
 */
final class ChunkEncoder implements ResponseEncoder {

    /**
     * No separator between root values: the SSE framing is written raw around each. Characters outside the BMP
     * (an engine's emoji) go out as raw UTF-8, as real servers send them, not as surrogate escapes.
     */
    static final JsonFactory JSON = new JsonFactoryBuilder()
            .rootValueSeparator((String) null)
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build();

    static final String FINISH_LENGTH = "length";
    static final String FINISH_STOP = "stop";

    private final Endpoint endpoint;
    private final String id;
    private final long createdSeconds;
    private final String model;

    ChunkEncoder(Endpoint endpoint, String id, long createdSeconds, String model) {
        this.endpoint = endpoint;
        this.id = id;
        this.createdSeconds = createdSeconds;
        this.model = model;
    }

    /** Writes JSON values (and raw SSE framing) through one generator. */
    @FunctionalInterface
    interface JsonWriter {
        void write(JsonGenerator g) throws IOException;
    }

    /** A new buffer holding what {@code writer} wrote; released again if writing fails. */
    static ByteBuf encode(ByteBufAllocator alloc, int initialCapacity, JsonWriter writer) {
        ByteBuf buf = alloc.buffer(initialCapacity);
        try (JsonGenerator g = JSON.createGenerator((OutputStream) new ByteBufOutputStream(buf))) {
            writer.write(g);
        } catch (IOException e) {
            buf.release();
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            buf.release();
            throw e;
        }
        return buf;
    }

    /** The first chat event: {@code delta: {"role":"assistant","content":""}}. Text completions have none. */
    void role(JsonGenerator g) throws IOException {
        if (endpoint != Endpoint.CHAT) return;
        startChunk(g);
        g.writeObjectFieldStart("delta");
        g.writeStringField("role", "assistant");
        g.writeStringField("content", "");
        g.writeEndObject();
        endChoice(g, null);
    }

    /** A content event carrying {@code text} in {@code delta.content} (chat) or {@code text} (completions). */
    void content(JsonGenerator g, String text) throws IOException {
        content(g, text, 0);
    }

    private void content(JsonGenerator g, String text, int paddingBytes) throws IOException {
        startChunk(g);
        writeDelta(g, text);
        endChoice(g, null, paddingBytes);
    }

    /** The event after the last content: empty delta (or text) and the finish reason. */
    void finish(JsonGenerator g, String finishReason) throws IOException {
        startChunk(g);
        if (endpoint == Endpoint.CHAT) {
            g.writeObjectFieldStart("delta");
            g.writeEndObject();
        } else {
            g.writeStringField("text", "");
        }
        endChoice(g, finishReason);
    }

    /** The {@code stream_options.include_usage} event: no choices, only usage. */
    void usage(JsonGenerator g, int promptTokens, int completionTokens) throws IOException {
        usage(g, new Usage(promptTokens, completionTokens, 0));
    }

    void usage(JsonGenerator g, Usage usage) throws IOException {
        g.writeRaw("data: ");
        g.writeStartObject();
        writeHeader(g, endpoint.chunkObject);
        g.writeArrayFieldStart("choices");
        g.writeEndArray();
        writeUsage(g, usage);
        g.writeEndObject();
        g.writeRaw("\n\n");
    }

    static void done(JsonGenerator g) throws IOException {
        g.writeRaw("data: [DONE]\n\n");
    }

    /** The non-streaming response: one choice with the whole text, usage always present. */
    void fullResponse(JsonGenerator g, String text, String finishReason, int promptTokens, int completionTokens)
            throws IOException {
        fullResponse(g, null, text, finishReason, new Usage(promptTokens, completionTokens, 0), 0);
    }

    private void fullResponse(JsonGenerator g, String reasoning, String text, String finishReason, Usage usage,
                              int paddingBytes) throws IOException {
        g.writeStartObject();
        writeHeader(g, endpoint.responseObject);
        g.writeArrayFieldStart("choices");
        g.writeStartObject();
        g.writeNumberField("index", 0);
        if (endpoint == Endpoint.CHAT) {
            g.writeObjectFieldStart("message");
            g.writeStringField("role", "assistant");
            if (reasoning != null) g.writeStringField("reasoning_content", reasoning);
            g.writeStringField("content", text);
            g.writeEndObject();
        } else {
            g.writeStringField("text", text);
        }
        g.writeNullField("logprobs");
        g.writeStringField("finish_reason", finishReason);
        g.writeEndObject();
        g.writeEndArray();
        writeUsage(g, usage);
        ResponseEncoder.writePadding(g, paddingBytes);
        g.writeEndObject();
    }

    // ResponseEncoder: the OpenAI / vLLM dialect

    @Override
    public void open(JsonGenerator g, Usage usage) throws IOException {
        role(g);
    }

    @Override
    public void chunk(JsonGenerator g, String reasoning, String content, int paddingBytes) throws IOException {
        if (reasoning == null) {
            content(g, content, paddingBytes);
            return;
        }
        startChunk(g); // only chat streams reasoning
        g.writeObjectFieldStart("delta");
        g.writeStringField("reasoning_content", reasoning);
        if (content != null) g.writeStringField("content", content);
        g.writeEndObject();
        endChoice(g, null, paddingBytes);
    }

    @Override
    public void close(JsonGenerator g, boolean stopped, Usage usage, boolean includeUsage, boolean terminalMarker)
            throws IOException {
        finish(g, stopped ? FINISH_STOP : FINISH_LENGTH);
        if (includeUsage) usage(g, usage);
        if (terminalMarker) done(g);
    }

    /** {@code data: {"error":{"message":..,"type":"server_error","code":500}}} then {@code data: [DONE]}. */
    @Override
    public void errorEvent(JsonGenerator g, String message) throws IOException {
        g.writeRaw("data: ");
        writeErrorBody(g, message);
        g.writeRaw("\n\n");
        done(g);
    }

    /** An event cut off inside its text string (see {@link FaultKind#MALFORMED_EVENT}), and the blank line. */
    @Override
    public void malformedEvent(JsonGenerator g) throws IOException {
        g.writeRaw("data: {\"id\":\"" + id + "\",\"object\":\"" + endpoint.chunkObject + "\",\"choices\":[{\"index\":0,"
                + (endpoint == Endpoint.CHAT ? "\"delta\":{\"content\":\"" : "\"text\":\"") + "\n\n");
    }

    @Override
    public void fullResponse(JsonGenerator g, String reasoning, String content, boolean stopped, Usage usage,
                             int paddingBytes) throws IOException {
        fullResponse(g, reasoning, content == null ? "" : content, stopped ? FINISH_STOP : FINISH_LENGTH, usage,
                paddingBytes);
    }

    @Override
    public void errorBody(JsonGenerator g) throws IOException {
        writeErrorBody(g, ERROR_EVENT_MESSAGE);
    }

    private static void writeErrorBody(JsonGenerator g, String message) throws IOException {
        g.writeStartObject();
        g.writeObjectFieldStart("error");
        g.writeStringField("message", message);
        g.writeStringField("type", "server_error");
        g.writeNumberField("code", 500);
        g.writeEndObject();
        g.writeEndObject();
    }

    private void startChunk(JsonGenerator g) throws IOException {
        g.writeRaw("data: ");
        g.writeStartObject();
        writeHeader(g, endpoint.chunkObject);
        g.writeArrayFieldStart("choices");
        g.writeStartObject();
        g.writeNumberField("index", 0);
    }

    private void writeDelta(JsonGenerator g, String text) throws IOException {
        if (endpoint == Endpoint.CHAT) {
            g.writeObjectFieldStart("delta");
            g.writeStringField("content", text);
            g.writeEndObject();
        } else {
            g.writeStringField("text", text);
        }
    }

    private static void endChoice(JsonGenerator g, String finishReason) throws IOException {
        endChoice(g, finishReason, 0);
    }

    private static void endChoice(JsonGenerator g, String finishReason, int paddingBytes) throws IOException {
        g.writeNullField("logprobs");
        g.writeStringField("finish_reason", finishReason);
        g.writeEndObject();
        g.writeEndArray();
        ResponseEncoder.writePadding(g, paddingBytes);
        g.writeEndObject();
        g.writeRaw("\n\n");
    }

    private void writeHeader(JsonGenerator g, String object) throws IOException {
        g.writeStringField("id", id);
        g.writeStringField("object", object);
        g.writeNumberField("created", createdSeconds);
        g.writeStringField("model", model);
    }

    /** {@code completion_tokens_details.reasoning_tokens} only when there were reasoning tokens. */
    private static void writeUsage(JsonGenerator g, Usage usage) throws IOException {
        g.writeObjectFieldStart("usage");
        g.writeNumberField("prompt_tokens", usage.promptTokens());
        g.writeNumberField("completion_tokens", usage.completionTokens());
        g.writeNumberField("total_tokens", (long) usage.promptTokens() + usage.completionTokens());
        if (usage.cachedTokens() > 0) { // vLLM omits the details when nothing was cached
            g.writeObjectFieldStart("prompt_tokens_details");
            g.writeNumberField("cached_tokens", usage.cachedTokens());
            g.writeEndObject();
        }
        if (usage.reasoningTokens() > 0) {
            g.writeObjectFieldStart("completion_tokens_details");
            g.writeNumberField("reasoning_tokens", usage.reasoningTokens());
            g.writeEndObject();
        }
        g.writeEndObject();
    }
}
