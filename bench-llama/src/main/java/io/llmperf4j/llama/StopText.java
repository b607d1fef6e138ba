package io.llmperf4j.llama;

import java.util.List;

/**
 * Applies OpenAI's {@code stop} strings to a generation's text as it streams: the text handed on ends before the
 * first stop string generated, which is not handed on, and no piece of a stop string is ever sent before it is known
 * not to be one (the text that could still begin one is held back, as vLLM and llama.cpp's server do).
 */
final class StopText {
    private final List<String> stops;
    /** Generated text not handed on yet: it could be the start of a stop string. */
    private final StringBuilder held = new StringBuilder();
    /** Everything generated, the stop string included. */
    private final StringBuilder generated = new StringBuilder();
    private int endOfStop = -1;

    StopText(List<String> stops) {
        this.stops = List.copyOf(stops);
    }

    /**
     * Takes the next piece of generated text and returns what can be handed on now (maybe empty). Once a stop string
     * is complete, {@link #stopped()} is true and later pieces are not taken.
     */
    String accept(String piece) {
        if (stopped()) throw new IllegalStateException("the text already stopped");
        generated.append(piece);
        held.append(piece);
        if (stops.isEmpty()) return release(held.length());
        int first = -1;
        int length = 0;
        for (String stop : stops) {
            int at = held.indexOf(stop);
            if (at >= 0 && (first < 0 || at < first)) {
                first = at;
                length = stop.length();
            }
        }
        if (first >= 0) {
            endOfStop = generated.length() - held.length() + first + length;
            String before = held.substring(0, first);
            held.setLength(0);
            return before;
        }
        return release(held.length() - longestStopPrefixAtEnd());
    }

    /** True once a stop string was generated. */
    boolean stopped() {
        return endOfStop >= 0;
    }

    /** The text generated up to the end of the stop string (all of it when none was). */
    String generatedThroughStop() {
        return stopped() ? generated.substring(0, endOfStop) : generated.toString();
    }

    /** The text still held back at the end of a generation that did not stop: it was no stop string after all. */
    String rest() {
        return release(held.length());
    }

    private String release(int chars) {
        String out = held.substring(0, chars);
        held.delete(0, chars);
        return out;
    }

    /** The length of the longest end of the held text that is the beginning of a stop string. */
    private int longestStopPrefixAtEnd() {
        String text = held.toString();
        int longest = 0;
        for (String stop : stops) {
            for (int k = Math.min(stop.length() - 1, text.length()); k > longest; k--) {
                if (text.regionMatches(text.length() - k, stop, 0, k)) {
                    longest = k;
                    break;
                }
            }
        }
        return longest;
    }
}
