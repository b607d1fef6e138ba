package io.llmperf4j.report.metrics;

import java.util.List;
import java.util.function.Function;

/**
 * How many successful requests took their token count from each {@link TokenSource}.
 *
 * @param serverUsage     counted by the server's usage
 * @param clientTokenizer counted on the client side
 * @param none            without a count
 */
public record TokenSourceCounts(int serverUsage, int clientTokenizer, int none) {

    /** Counts the source {@code sourceOf} gives for each successful request. */
    public static TokenSourceCounts of(List<RequestMetrics> requests, Function<RequestMetrics, TokenSource> sourceOf) {
        int server = 0;
        int client = 0;
        int none = 0;
        for (RequestMetrics request : requests) {
            if (!request.succeeded()) continue;
            switch (sourceOf.apply(request)) {
                case SERVER_USAGE -> server++;
                case CLIENT_TOKENIZER -> client++;
                case NONE -> none++;
            }
        }
        return new TokenSourceCounts(server, client, none);
    }

    /** The count of one source. */
    public int count(TokenSource source) {
        return switch (source) {
            case SERVER_USAGE -> serverUsage;
            case CLIENT_TOKENIZER -> clientTokenizer;
            case NONE -> none;
        };
    }
}
