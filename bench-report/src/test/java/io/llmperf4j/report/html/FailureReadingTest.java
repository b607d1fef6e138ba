package io.llmperf4j.report.html;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.llmperf4j.model.FailureKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Errors section's sentence follows what the failures point at: only capacity failures mean the load broke it. */
class FailureReadingTest {

    private static ReportSeries.ErrorGroup group(FailureKind kind, int code, int count) {
        return new ReportSeries.ErrorGroup(kind, code, count, 1, List.of("m"));
    }

    @Test
    void configurationErrorsDoNotClaimTheServiceFailedTheLoad() {
        assertEquals("3 point at the configuration (a 4xx other than 408/429, a refused or failed connection): the "
                        + "requests were refused, which says nothing about the load; check the API key, model id "
                        + "and base URL.",
                HtmlPage.failureReading(List.of(group(FailureKind.HTTP_STATUS, 401, 2),
                        group(FailureKind.HTTP_STATUS, 404, 1))));
    }

    @Test
    void capacityAndConfigurationAreCountedApartAndCancellationsSayNothing() {
        assertEquals("4 point at capacity (429, 408, 5xx, timeouts, dropped connections): the service did not hold "
                        + "this load, or it stopped while answering (a crash, a restart?): check its logs. 1 points at the configuration (a 4xx other than 408/429, a refused or failed "
                        + "connection): the requests were refused, which says nothing about the load; check the API "
                        + "key, model id and base URL. 2 were cancelled in flight when the run ended: those say "
                        + "nothing about the load.",
                HtmlPage.failureReading(List.of(group(FailureKind.HTTP_STATUS, 429, 1),
                        group(FailureKind.HTTP_STATUS, 503, 1), group(FailureKind.IDLE_TIMEOUT, -1, 1),
                        group(FailureKind.CONNECTION_CLOSED, -1, 1), group(FailureKind.HTTP_STATUS, 400, 1),
                        group(FailureKind.CANCELLED, -1, 2))));
    }

    @Test
    void aServerThatStoppedMidStreamIsNotOnlyLoad() {
        assertEquals("1 points at capacity (429, 408, 5xx, timeouts, dropped connections): the service did not hold "
                + "this load.", HtmlPage.failureReading(List.of(group(FailureKind.HTTP_STATUS, 429, 1))));
        assertEquals("3 point at capacity (429, 408, 5xx, timeouts, dropped connections): the service did not hold "
                        + "this load, or it stopped while answering (a crash, a restart?): check its logs.",
                HtmlPage.failureReading(List.of(group(FailureKind.CONNECTION_CLOSED, -1, 3))));
    }

    @Test
    void streamsThatBrokeTheApiPointAtNeither() {
        assertEquals("2 point at neither (malformed or cut-short responses, errors without a status code, client "
                        + "errors): read their messages.",
                HtmlPage.failureReading(List.of(group(FailureKind.MALFORMED_EVENT, -1, 1),
                        group(FailureKind.ERROR_IN_STREAM, -1, 1))));
    }
}
