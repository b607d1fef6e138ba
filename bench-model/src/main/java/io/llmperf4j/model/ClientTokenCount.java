package io.llmperf4j.model;

import java.util.Objects;

/**
 * Fills a record's client-side token counts after the request ended, off the I/O threads: llmperf's
 * {@code outputTokens} and, when the counter knows token offsets, {@code contentEventTokens}.
 *
 * <p>A token belongs to the content event its text <em>ends</em> in: a token split across two events counts in the
 * later one (it was not complete before), and an event can carry 0 tokens. Added special tokens (the Llama BOS)
 * have no text and belong to no event, so the per-event counts add up to {@code outputTokens} minus those special
 * tokens, i.e. to the generated tokens.
 */
public final class ClientTokenCount {

    private ClientTokenCount() {
    }

    /**
     * {@code record} with its generated text counted by {@code counter}. A failed request that received no text
     * counts 0: the tokenizer's BOS on an empty text is no token of an answer (QA: cancelled requests read
     * {@code output_tokens_client} 1), and llmperf never counts a failure. A successful one keeps llmperf's 1.
     */
    public static RequestRecord count(RequestRecord record, TokenCounter counter) {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(counter, "counter");
        String text = record.generatedText();
        if (text.isEmpty() && !record.succeeded()) { // a counter that never counts (-1) still says so
            return record.withOutputTokens(Math.min(0, counter.count(text)));
        }
        TokenCounter.EventTokens tokens = eventsRecorded(record)
                ? counter.tokensPerEvent(text, record.contentEventChars()) : null;
        if (tokens == null) return record.withOutputTokens(counter.count(text));
        return record.withOutputTokens(tokens.total()).withContentEventTokens(tokens.perEvent());
    }

    /**
     * Tokens ending in each event: {@code eventChars[k]} is event k's UTF-16 length, the events concatenated make
     * the text the {@code tokenEnds} index. A token ending at index 0 (an empty token before any text) counts in
     * the first event; {@link TokenCounter#NO_TEXT} ends count nowhere.
     */
    public static int[] perEvent(int[] tokenEnds, int[] eventChars) {
        int[] tokens = new int[eventChars.length];
        if (eventChars.length == 0) return tokens;
        int event = 0;
        long eventEnd = eventChars[0];
        for (int end : tokenEnds) { // ascending, as tokens follow the text
            if (end == TokenCounter.NO_TEXT) continue;
            while (end > eventEnd && event < eventChars.length - 1) {
                eventEnd += eventChars[++event];
            }
            tokens[event]++;
        }
        return tokens;
    }

    /** Event sizes exist and add up to the text (older or hand-built records have none). */
    private static boolean eventsRecorded(RequestRecord record) {
        int[] chars = record.contentEventChars();
        if (chars.length == 0 || chars.length != record.contentEventNanos().length) return false;
        long sum = 0;
        for (int c : chars) sum += c;
        return sum == record.generatedText().length();
    }
}
