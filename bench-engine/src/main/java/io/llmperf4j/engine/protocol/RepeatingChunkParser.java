package io.llmperf4j.engine.protocol;

import java.util.Arrays;

/**
 * One stream's chat/completions chunk parser. A server writes the chunks of one stream from one template: the same
 * id, object, created, model and choice fields, byte for byte, around a content string that changes. So when an
 * event's bytes equal the last learnt event's before and after its content string, and what lies between is exactly
 * one valid JSON string body, the event has the same structure and the same values but the content: the learnt
 * result is reused with the new content, without walking the JSON again. Any other event (the role chunk, the finish
 * chunk, a usage chunk, a different template, escapes the fast check does not take) is parsed in full by
 * {@link ChatCompletionChunkParser} and, when it can serve, becomes the new template. The results are always those
 * of the full parse.
 *
 * <p>Not thread-safe: one per stream, used by one thread at a time (the request's serial worker).
 */
final class RepeatingChunkParser implements ChunkParser {

    private final ChatCompletionChunkParser full;
    /** The learnt event's bytes (an event's own array, never mutated), null before the first usable one. */
    private byte[] template;
    private int contentStart;
    /** The template's closing quote of the content: the template's bytes from here on are its suffix. */
    private int contentEnd;
    private ParsedChunk learnt;

    RepeatingChunkParser(ChatCompletionChunkParser full) {
        this.full = full;
    }

    @Override
    public ParsedChunk parse(byte[] data) throws MalformedChunkException {
        return parse(null, data, 0, data.length);
    }

    /** Reads a lent event in place; only an event that becomes the template is copied, as it must be kept. */
    @Override
    public ParsedChunk parse(String eventType, byte[] data, int from, int to) throws MalformedChunkException {
        if (ChatCompletionChunkParser.ERROR_EVENT.equals(eventType)) {
            return full.parseErrorEvent(Arrays.copyOfRange(data, from, to)); // never a template
        }
        if (template != null) {
            ParsedChunk same = sameTemplate(data, from, to);
            if (same != null) return same;
        }
        MalformedChunkException.requireData(eventType, data, from, to);
        byte[] own = from == 0 && to == data.length ? data : Arrays.copyOfRange(data, from, to);
        ChatCompletionChunkParser.Learned parsed = full.parseLearning(own);
        if (parsed.contentStart() >= 0) {
            template = own;
            contentStart = parsed.contentStart();
            contentEnd = parsed.contentEnd();
            learnt = parsed.chunk();
        }
        return parsed.chunk();
    }

    /** The learnt chunk with this event's content, or null when the event differs elsewhere. */
    private ParsedChunk sameTemplate(byte[] data, int from, int to) {
        int suffix = template.length - contentEnd;
        int end = to - suffix; // where this event's closing quote must be
        // the closing quote first: an event that differs after its content (the last one, with a finish reason)
        // fails here, on every server, instead of on the suffix comparison's first byte, a branch that servers which
        // send the finish reason in an empty event never take before the run (and the JIT would compile it away)
        if (end < from + contentStart || data[end] != '"') return null;
        if (!Arrays.equals(data, from, from + contentStart, template, 0, contentStart)) return null;
        if (!Arrays.equals(data, end, to, template, contentEnd, template.length)) return null;
        String content = ByteJsonCursor.stringBody(data, from + contentStart, end);
        if (content == null) return null;
        return new ParsedChunk(learnt.responseId(), content, learnt.finishReason(), learnt.countsAsDataEvent(),
                learnt.usagePromptTokens(), learnt.usageCompletionTokens(), null, learnt.reasoning(),
                learnt.usageCachedTokens());
    }
}
