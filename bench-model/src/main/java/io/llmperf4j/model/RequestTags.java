package io.llmperf4j.model;

import java.util.List;

/**
 * What a record says about the request beyond llmperf's fields: its session and turn, the server's cached prompt
 * tokens, the images it carried, whether its stream lacked the API's end marker, and the stream lines it ignored.
 *
 * @param sessionId    the session the request was a turn of, or null
 * @param turn         0-based turn index, or -1 outside sessions
 * @param cachedTokens {@code usage.prompt_tokens_details.cached_tokens} as the server reported it, or null
 * @param imageCount   images sent, a session's resent history included ({@link RequestInputs#sentImages()})
 * @param imagePixels  pixels of the images sent
 * @param imageBytes   encoded bytes of the images sent (before base64)
 * @param endMarkerMissing a successful stream that ended cleanly after its finish reason but without the API's end
 *                     marker ({@code data: [DONE]}, {@code message_stop}); not written to the per-request files
 * @param sessionTurns the turns the workload gave the request's session (a failed session's rest: its session's,
 *                     not the rest's), so a summary tells a session completed from one cut; 0 when unknown (outside
 *                     sessions, or a record written before this was)
 * @param restOf       a failed session's rest ({@code s0~t2}, its unsent turns sent without history): the workload's
 *                     session it continues ({@code s0}), so a summary counts it there without reading its id; null
 *                     for any other request
 * @param ignoredStreamLines lines of the response's event stream the SSE standard ignores that are no comment: a
 *                     field other than data, event, id and retry (a chunk sent without {@code data:}); 0 for a
 *                     stream without any, or a record written before this was
 * @param ignoredStreamLine the first of them, printable and cut short, or null when there was none
 */
public record RequestTags(String sessionId, int turn, Integer cachedTokens, int imageCount, long imagePixels,
                          long imageBytes, boolean endMarkerMissing, int sessionTurns, String restOf,
                          int ignoredStreamLines, String ignoredStreamLine) {
    public static final RequestTags NONE = new RequestTags(null, -1, null, 0, 0, 0);

    public RequestTags(String sessionId, int turn, Integer cachedTokens, int imageCount, long imagePixels,
                       long imageBytes) {
        this(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, false);
    }

    public RequestTags(String sessionId, int turn, Integer cachedTokens, int imageCount, long imagePixels,
                       long imageBytes, boolean endMarkerMissing) {
        this(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, endMarkerMissing, 0);
    }

    public RequestTags(String sessionId, int turn, Integer cachedTokens, int imageCount, long imagePixels,
                       long imageBytes, boolean endMarkerMissing, int sessionTurns) {
        this(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, endMarkerMissing, sessionTurns, null,
                0, null);
    }

    /** The tags a request's inputs determine before it is sent. */
    public static RequestTags of(RequestInputs inputs) {
        if (inputs == null || inputs == RequestInputs.TEXT_ONLY) {
            return NONE;
        }
        // the history's images too: the server receives and counts them, so per-image figures divide by them
        List<ImageInput> sent = inputs.sentImages();
        long pixels = 0;
        long bytes = 0;
        for (ImageInput image : sent) {
            pixels += image.pixels();
            bytes += image.byteLength();
        }
        return new RequestTags(inputs.sessionId(), inputs.turn(), null, sent.size(), pixels, bytes);
    }

    public RequestTags withCachedTokens(Integer tokens) {
        return new RequestTags(sessionId, turn, tokens, imageCount, imagePixels, imageBytes, endMarkerMissing,
                sessionTurns, restOf, ignoredStreamLines, ignoredStreamLine);
    }

    public RequestTags withEndMarkerMissing() {
        return new RequestTags(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, true, sessionTurns,
                restOf, ignoredStreamLines, ignoredStreamLine);
    }

    /**
     * These tags with the turns the workload gave the request's session and, for a failed session's rest, the
     * workload's session it continues ({@code restOf}; null otherwise).
     */
    public RequestTags withWorkloadSession(int turns, String restOf) {
        return new RequestTags(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, endMarkerMissing,
                turns, restOf, ignoredStreamLines, ignoredStreamLine);
    }

    /** The workload's session the request was a turn of: its session, or the one a rest continues; null outside. */
    public String workloadSessionId() {
        return restOf != null ? restOf : sessionId;
    }

    /** These tags with the stream's ignored lines: how many, and the first (printable, short). */
    public RequestTags withIgnoredStreamLines(int count, String first) {
        return new RequestTags(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, endMarkerMissing,
                sessionTurns, restOf, count, first);
    }
}
