package io.llmperf4j.report.html;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.ServerGone;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Errors section's sentence follows what the failures point at: only capacity failures mean the load broke it. */
class FailureReadingTest {

    private static ReportSeries.ErrorGroup group(FailureKind kind, int code, int count) {
        return new ReportSeries.ErrorGroup(kind, code, count, 1, List.of("m"));
    }

    /** The sentence of failures none of which points at the server going away. */
    private static String reading(List<ReportSeries.ErrorGroup> groups) {
        return HtmlPage.failureReading(groups, null);
    }

    private static ReportSeries.ErrorGroup refused(int count) {
        return new ReportSeries.ErrorGroup(FailureKind.CONNECT_FAILED, -1, count, 1, List.of("m"),
                FailureCause.SERVER_UNAVAILABLE);
    }

    /**
     * The server going away is worded as the summary's warning words it ({@link ServerGone}): after how many
     * successes, or before any (killed during the first wave), and since when; the table's tag says which.
     */
    @Test
    void theServerGoingAwaySaysWhetherAnyRequestHadSucceeded() {
        long at = 1_700_000_587_000_000L; // 22:23:07 UTC
        ServerGone firstWave = new ServerGone(at, 0, 4);
        assertEquals("8 point at the server going away (connections refused before any request succeeded but after "
                        + "it had begun answering 4 requests (the first sent at 22:23:07 UTC): a restart, a crash, an "
                        + "out-of-memory kill): the URL is right; check the server's logs.",
                HtmlPage.failureReading(List.of(refused(8)), firstWave));
        assertEquals(" (before any success, after answering)", HtmlPage.goneTag(firstWave));
        ServerGone midRun = new ServerGone(at, 12, 0);
        assertEquals("1 points at the server going away (connections refused after requests of this run had "
                        + "succeeded (the first sent at 22:23:07 UTC, after 12 successes): a restart, a crash, an "
                        + "out-of-memory kill): the URL is right; check the server's logs.",
                HtmlPage.failureReading(List.of(refused(1)), midRun));
        assertEquals(" (after successes)", HtmlPage.goneTag(midRun));
    }

    @Test
    void configurationErrorsDoNotClaimTheServiceFailedTheLoad() {
        assertEquals("3 point at the configuration (a 4xx other than 408/429, a refused or failed connection): the "
                        + "requests were refused, which says nothing about the load; check the API key, model id "
                        + "and base URL.",
                reading(List.of(group(FailureKind.HTTP_STATUS, 401, 2),
                        group(FailureKind.HTTP_STATUS, 404, 1))));
    }

    @Test
    void capacityAndConfigurationAreCountedApartAndCancellationsSayNothing() {
        assertEquals("4 point at capacity (429, 408, 5xx, timeouts, dropped connections, error events after "
                        + "tokens): the service did not hold "
                        + "this load, or it stopped while answering (a crash, a restart?): check its logs. 1 points at the configuration (a 4xx other than 408/429, a refused or failed "
                        + "connection): the requests were refused, which says nothing about the load; check the API "
                        + "key, model id and base URL. 2 were cancelled in flight when the run ended: those say "
                        + "nothing about the load.",
                reading(List.of(group(FailureKind.HTTP_STATUS, 429, 1),
                        group(FailureKind.HTTP_STATUS, 503, 1), group(FailureKind.IDLE_TIMEOUT, -1, 1),
                        group(FailureKind.CONNECTION_CLOSED, -1, 1), group(FailureKind.HTTP_STATUS, 400, 1),
                        group(FailureKind.CANCELLED, -1, 2))));
    }

    @Test
    void aServerThatStoppedMidStreamIsNotOnlyLoad() {
        assertEquals("1 points at capacity (429, 408, 5xx, timeouts, dropped connections, error events after "
                        + "tokens): the service did not hold "
                + "this load.", reading(List.of(group(FailureKind.HTTP_STATUS, 429, 1))));
        assertEquals("3 point at capacity (429, 408, 5xx, timeouts, dropped connections, error events after "
                        + "tokens): the service did not hold "
                        + "this load, or it stopped while answering (a crash, a restart?): check its logs.",
                reading(List.of(group(FailureKind.CONNECTION_CLOSED, -1, 3))));
    }

    /** A coded error event after tokens is the server failing while serving: the warning's words (23d2d27). */
    @Test
    void errorEventsAfterTokensSayTheServerFailedWhileAnswering() {
        ReportSeries.ErrorGroup afterTokens = new ReportSeries.ErrorGroup(FailureKind.ERROR_IN_STREAM, 400, 2, 1,
                List.of("m"), FailureCause.CAPACITY);
        assertEquals("2 point at capacity (429, 408, 5xx, timeouts, dropped connections, error events after tokens): "
                        + "the service did not hold this load, or it failed while answering (error events in streams "
                        + "it had accepted: an engine error?): check its logs.",
                reading(List.of(afterTokens)));
        assertEquals("3 point at capacity (429, 408, 5xx, timeouts, dropped connections, error events after tokens): "
                        + "the service did not hold this load, or it failed or stopped while answering (error events "
                        + "in streams it had accepted, a crash, a restart?): check its logs.",
                reading(List.of(afterTokens, group(FailureKind.CONNECTION_CLOSED, -1, 1))));
    }

    @Test
    void streamsThatBrokeTheApiPointAtNeither() {
        assertEquals("2 point at neither (malformed or cut-short responses, errors without a status code, client "
                        + "errors): read their messages.",
                reading(List.of(group(FailureKind.MALFORMED_EVENT, -1, 1),
                        group(FailureKind.ERROR_IN_STREAM, -1, 1))));
    }
}
