package io.llmperf4j.model;

import java.util.List;

/**
 * What a record says about the request beyond llmperf's fields: its session and turn, the server's cached prompt
 * tokens, the images it carried, and whether its stream lacked the API's end marker.
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
 */
public record RequestTags(String sessionId, int turn, Integer cachedTokens, int imageCount, long imagePixels,
                          long imageBytes, boolean endMarkerMissing, int sessionTurns) {
    public static final RequestTags NONE = new RequestTags(null, -1, null, 0, 0, 0);

    public RequestTags(String sessionId, int turn, Integer cachedTokens, int imageCount, long imagePixels,
                       long imageBytes) {
        this(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, false);
    }

    public RequestTags(String sessionId, int turn, Integer cachedTokens, int imageCount, long imagePixels,
                       long imageBytes, boolean endMarkerMissing) {
        this(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, endMarkerMissing, 0);
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
                sessionTurns);
    }

    public RequestTags withEndMarkerMissing() {
        return new RequestTags(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, true, sessionTurns);
    }

    /** These tags with the turns the workload gave the request's session. */
    public RequestTags withSessionTurns(int turns) {
        return new RequestTags(sessionId, turn, cachedTokens, imageCount, imagePixels, imageBytes, endMarkerMissing,
                turns);
    }
}
