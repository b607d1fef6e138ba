package io.llmperf4j.engine.protocol;

import io.llmperf4j.model.PrintableText;

/** The data of an event was not valid JSON or not a chunk of the API; the message says why, without the data. */
public final class MalformedChunkException extends Exception {
    private static final long serialVersionUID = 1L;
    /** How much of an event's type a message quotes. */
    private static final int TYPE_CHARS = 40;

    public MalformedChunkException(String reason) {
        super(reason);
    }

    /**
     * Throws when {@code data[from, to)} holds nothing but whitespace: "empty data in event: ping, not a JSON object",
     * the SSE event's type named when it had one ("empty data, not a JSON object" without). The failure quotes the
     * data after its reason, and empty data quotes nothing (QA: "... is malformed (not a JSON object): " and no more);
     * every API's parser asks this first, so an empty event reads the same whichever API it came from.
     *
     * @param eventType the event's {@code event:} value, or null when it had none (and for a whole response body)
     */
    public static void requireData(String eventType, byte[] data, int from, int to) throws MalformedChunkException {
        for (int i = from; i < to; i++) {
            byte b = data[i];
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') return;
        }
        throw new MalformedChunkException("empty data" + (eventType == null ? ""
                : " in event: " + PrintableText.quote(eventType, TYPE_CHARS)) + ", not a JSON object");
    }
}
