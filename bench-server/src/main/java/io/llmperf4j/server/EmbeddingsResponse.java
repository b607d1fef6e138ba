package io.llmperf4j.server;

import com.fasterxml.jackson.core.JsonGenerator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;

/**
 * The OpenAI embeddings response: {@code {"object":"list","data":[{"object":"embedding","index":i,
 * "embedding":[..] or "<base64>"}],"model":..,"usage":{"prompt_tokens":n,"total_tokens":n}}}.
 *
 * <p>A vector is a pure function of its input's seed: the first {@code dimensions} of the components
 * {@code unit(mix(seed, i)) * 2 - 1}, scaled to unit L2 norm (so a shorter vector is the longer one truncated and
 * renormalized, as OpenAI's {@code dimensions} behaves).
 */
final class EmbeddingsResponse {

    private EmbeddingsResponse() {
    }

    static FullHttpResponse encode(ByteBufAllocator alloc, EmbeddingsRequest request, String model, int inputTokens) {
        return OpenAiResponses.json(HttpResponseStatus.OK, body(alloc, request, model, inputTokens));
    }

    /** The {@link FaultKind#MALFORMED_EVENT} response: an HTTP 200 with the first half of the normal body. */
    static FullHttpResponse cutInHalf(ByteBufAllocator alloc, EmbeddingsRequest request, String model,
                                      int inputTokens) {
        ByteBuf body = body(alloc, request, model, inputTokens);
        body.writerIndex(body.readerIndex() + body.readableBytes() / 2);
        return OpenAiResponses.json(HttpResponseStatus.OK, body);
    }

    /** The {@link FaultKind#ERROR_EVENT} response: an HTTP 200 whose body is an error object, as vLLM's. */
    static FullHttpResponse errorObject(ByteBufAllocator alloc) {
        ByteBuf body = ChunkEncoder.encode(alloc, 128, g -> {
            g.writeStartObject();
            g.writeObjectFieldStart("error");
            g.writeStringField("message", ResponseEncoder.ERROR_EVENT_MESSAGE);
            g.writeStringField("type", "server_error");
            g.writeNumberField("code", 500);
            g.writeEndObject();
            g.writeEndObject();
        });
        return OpenAiResponses.json(HttpResponseStatus.OK, body);
    }

    private static ByteBuf body(ByteBufAllocator alloc, EmbeddingsRequest request, String model, int inputTokens) {
        int perVector = request.base64() ? request.dimensions() * 4 / 3 + 64 : request.dimensions() * 12 + 64;
        return ChunkEncoder.encode(alloc, 128 + perVector * request.inputs().size(), g -> {
            g.writeStartObject();
            g.writeStringField("object", "list");
            g.writeArrayFieldStart("data");
            for (int i = 0; i < request.inputs().size(); i++) {
                g.writeStartObject();
                g.writeStringField("object", "embedding");
                g.writeNumberField("index", i);
                g.writeFieldName("embedding");
                writeVector(g, vector(request.inputs().get(i).seed(), request.dimensions()), request.base64());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeStringField("model", model);
            g.writeObjectFieldStart("usage");
            g.writeNumberField("prompt_tokens", inputTokens);
            g.writeNumberField("total_tokens", inputTokens);
            g.writeEndObject();
            g.writeEndObject();
        });
    }

    /** The unit-norm vector of {@code dimensions} components for {@code seed}. */
    static float[] vector(long seed, int dimensions) {
        double[] raw = new double[dimensions];
        double sumOfSquares = 0;
        for (int i = 0; i < dimensions; i++) {
            raw[i] = Hashing.unit(Hashing.mix(seed, i)) * 2 - 1;
            sumOfSquares += raw[i] * raw[i];
        }
        double norm = Math.sqrt(sumOfSquares);
        float[] vector = new float[dimensions];
        for (int i = 0; i < dimensions; i++) vector[i] = (float) (norm == 0 ? (i == 0 ? 1 : 0) : raw[i] / norm);
        return vector;
    }

    private static void writeVector(JsonGenerator g, float[] vector, boolean base64) throws IOException {
        if (base64) {
            ByteBuffer bytes = ByteBuffer.allocate(vector.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (float v : vector) bytes.putFloat(v);
            g.writeString(Base64.getEncoder().encodeToString(bytes.array()));
            return;
        }
        g.writeStartArray();
        for (float v : vector) g.writeNumber(v);
        g.writeEndArray();
    }
}
