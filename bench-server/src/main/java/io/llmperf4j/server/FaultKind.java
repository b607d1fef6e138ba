package io.llmperf4j.server;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What the simulator does wrong to one generation request ({@code /v1/chat/completions}, {@code /v1/completions},
 * {@code /v1/messages}). The lowercase {@link #headerValue()} names a kind in the {@value #HEADER} request header,
 * which forces that kind on that request whatever the {@link FaultPlan} says.
 *
 * <p>With n the number of content chunks of the response, the <em>fault chunk</em> is chunk {@code n / 2}
 * (0-based, integer division: chunk 0 when n = 1). Exact wire behaviour, streaming ({@code "stream": true}):
 * <ul>
 * <li>{@link #NONE}: the normal response.</li>
 * <li>{@code HTTP_*}: on arrival, without taking a sequence slot, that HTTP status with an error JSON body
 *     ({@code {"error":{"message","type","param":null,"code":<status>}}} for OpenAI paths,
 *     {@code {"type":"error","error":{"type","message"}}} for {@code /v1/messages}); 429 also carries
 *     {@code Retry-After: 1}. The connection stays usable.</li>
 * <li>{@link #ERROR_EVENT}: HTTP 200 and the SSE headers at the first content chunk's due time; the first and
 *     only event is {@code data: {"error":{"message":...,"type":"server_error","code":500}}} (no choices), then
 *     {@code data: [DONE]} (as vLLM ends a failed stream), then the response ends cleanly. For
 *     {@code /v1/messages}: {@code event: error} with {@code {"type":"error","error":{"type":"api_error",...}}} and
 *     nothing after it.</li>
 * <li>{@link #RESET}: on arrival, the connection is reset (SO_LINGER 0, so a TCP RST) before any response byte.</li>
 * <li>{@link #DROP_MID_STREAM}: the stream runs normally up to and including the fault chunk, then the connection
 *     is closed (FIN) without the finish event, {@code [DONE]} or the chunked-encoding terminator.</li>
 * <li>{@link #MALFORMED_EVENT}: right before the fault chunk, one extra event whose JSON is cut off inside the
 *     text string: <code>data: &#123;"id":"&lt;id&gt;","object":"&lt;object&gt;","choices":[&#123;"index":0,
 *     "delta":&#123;"content":"</code> (completions: <code>"text":"</code>) and the blank line; for
 *     {@code /v1/messages} an {@code event: content_block_delta} whose data is
 *     <code>&#123;"type":"content_block_delta","index":0,"delta":&#123;"type":"text_delta","text":"</code>. Every
 *     normal event still follows, so the stream is otherwise complete.</li>
 * <li>{@link #MISSING_DONE}: the complete stream, finish (and usage) events included, and a clean end of the
 *     HTTP response, but no {@code data: [DONE]} ({@code /v1/messages}: no {@code message_stop}).</li>
 * <li>{@link #STALL}: the fault chunk and every later one are due {@link FaultPlan#stallDuration()} later than
 *     the timing contract says: the stream stops for that long, then continues.</li>
 * <li>{@link #OVERSIZED_EVENT}: the fault chunk's event also carries a {@value ResponseEncoder#PADDING_FIELD}
 *     string of {@link FaultPlan#oversizedEventBytes()} spaces in its top-level object, so it holds more than that
 *     many bytes; its text, every token and the usage are those of the clean response (max_tokens is honoured). A
 *     client must take the large event whole and record the same request as without the fault: the default 1 MiB
 *     is below llmperf4j's 16 MiB event limit. (It used to pad the text with extra tokens, beyond max_tokens.)</li>
 * </ul>
 * Non-streaming requests: {@code HTTP_*} and {@code RESET} as above; {@code ERROR_EVENT} is an HTTP 200 whose body
 * is the error object, sent when the first content chunk is due; {@code DROP_MID_STREAM} closes the connection without a byte when the response would have
 * been sent; {@code MALFORMED_EVENT} is an HTTP 200 whose body is the first half of the normal JSON (the
 * Content-Length matches); {@code STALL} sends the response a stall later; {@code OVERSIZED_EVENT} pads the body's
 * top-level object as above. {@code MISSING_DONE} does not apply: a plan never picks it for a non-streaming request, and forcing it
 * by header is a 400.
 */
public enum FaultKind {
    NONE("none", 0),
    HTTP_400("http_400", 400),
    HTTP_401("http_401", 401),
    HTTP_403("http_403", 403),
    HTTP_404("http_404", 404),
    HTTP_429("http_429", 429),
    HTTP_500("http_500", 500),
    HTTP_503("http_503", 503),
    ERROR_EVENT("error_event", 0),
    RESET("reset", 0),
    DROP_MID_STREAM("drop_mid_stream", 0),
    MALFORMED_EVENT("malformed_event", 0),
    MISSING_DONE("missing_done", 0),
    STALL("stall", 0),
    OVERSIZED_EVENT("oversized_event", 0);

    /** The request header that forces a fault kind on one request; its value is a {@link #headerValue()}. */
    public static final String HEADER = "X-Sim-Fault";

    private final String headerValue;
    private final int httpStatus;

    FaultKind(String headerValue, int httpStatus) {
        this.headerValue = headerValue;
        this.httpStatus = httpStatus;
    }

    /** The lowercase name used in the {@value #HEADER} header, e.g. {@code drop_mid_stream}. */
    public String headerValue() {
        return headerValue;
    }

    /** The HTTP status of an {@code HTTP_*} kind, else 0. */
    public int httpStatus() {
        return httpStatus;
    }

    public boolean isHttpStatus() {
        return httpStatus != 0;
    }

    /** Whether the kind can happen to a non-streaming request (all but {@link #MISSING_DONE}). */
    public boolean appliesToNonStreaming() {
        return this != MISSING_DONE;
    }

    /** Whether this kind changes an embeddings response (which has no text to pad and no stream). */
    public boolean appliesToEmbeddings() {
        return appliesToNonStreaming() && this != OVERSIZED_EVENT;
    }

    /**
     * The kind named by a header value (case-insensitive, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static FaultKind fromHeaderValue(String value) {
        String wanted = value.trim().toLowerCase(Locale.ROOT);
        for (FaultKind kind : values()) {
            if (kind.headerValue.equals(wanted)) return kind;
        }
        throw new IllegalArgumentException(HEADER + " (" + value + ") must be one of " + Arrays.stream(values())
                .map(FaultKind::headerValue).collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return headerValue;
    }
}
