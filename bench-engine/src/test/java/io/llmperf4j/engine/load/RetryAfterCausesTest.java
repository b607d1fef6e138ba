package io.llmperf4j.engine.load;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureCause;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RetryAfter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static io.llmperf4j.engine.load.ClosedLoopRunnerTest.specs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sweep level's causes say what a 429 or a Retry-After asked, in the console's words ("6x 429 [Retry-After: 3-7
 * s; not retried]"), from the records a level's run kept: an open loop against an in-memory client that answers by
 * the spec's index.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RetryAfterCausesTest {
    private static final String BODY = "{\"error\":{\"message\":\"Rate limit exceeded\"}}";

    private static LevelSummary level(FakeClient client, int requests) {
        OpenLoopSettings settings = OpenLoopSettings.builder(2000).arrival(Arrival.constant()).maxRequests(requests)
                .timeout(Duration.ofMinutes(1)).build();
        return LevelSummary.of(new OpenLoopRunner(client, t -> 1).run(specs(6), settings), r -> 1);
    }

    @Test
    void everyRequestFailedSaysTheRetryAfterRangeAndThatNoneWasRetried() {
        LevelSummary s = level(FakeClient.answering(spec -> new Failure(FailureKind.HTTP_STATUS, 429,
                BODY + RetryAfter.note(spec.index() % 2 == 0 ? "3" : "7"))), 6);
        assertEquals(Map.of(FailureCause.CAPACITY, "6x 429 [Retry-After: 3-7 s; not retried]"), s.failedAsByCause());
        List<String> lines = SaturationVerdict.evaluate(List.of(s), SaturationRules.DEFAULT, "rate").describe("rate");
        String causes = "6 of 6: 6 capacity (" + FailureCause.CAPACITY_SIGNS + "; 6x 429 [Retry-After: 3-7 s; not "
                + "retried])";
        assertTrue(lines.contains("not judged: rate 2000 req/s: every request failed (" + causes + "); its failure "
                + "rate is recorded, its performance numbers are empty"), lines::toString);
        assertTrue(lines.contains("first level with failures: rate 2000 req/s (" + causes.replace("6 of 6: ",
                "6 of 6 failed: ") + "): the service cannot hold it"), lines::toString);
    }

    /**
     * Only a cause whose failures asked the client to come back says what they were (all of them, a 503 without the
     * header too); a 429 without one is "not retried" still; the other causes keep their words alone.
     */
    @Test
    void onlyTheCausesAskedToComeBackSayWhatTheyWere() {
        LevelSummary s = level(FakeClient.answering(spec -> switch (spec.index()) {
            case 0, 1 -> new Failure(FailureKind.HTTP_STATUS, 429, BODY);
            case 2 -> new Failure(FailureKind.HTTP_STATUS, 503, "busy");
            case 3 -> new Failure(FailureKind.HTTP_STATUS, 400, "bad request");
            default -> null;
        }), 6);
        assertEquals(Map.of(FailureCause.CAPACITY, "2x 429 [not retried], 1x 503"), s.failedAsByCause());
        assertEquals("1 configuration (connection refused or 4xx), 3 capacity (" + FailureCause.CAPACITY_SIGNS
                + "; 2x 429 [not retried], 1x 503)", SaturationVerdict.causes(s));
        LevelSummary no429 = level(FakeClient.answering(spec -> spec.index() == 2
                ? new Failure(FailureKind.HTTP_STATUS, 503, "busy") : null), 6);
        assertEquals(Map.of(), no429.failedAsByCause());
        assertEquals("1 capacity (" + FailureCause.CAPACITY_SIGNS + ")", SaturationVerdict.causes(no429));
    }

    /** A 429 sent as an error event under a 200 is as unretried as an HTTP 429; other error events keep their words. */
    @Test
    void a429ErrorEventIsSaidNotRetried() {
        LevelSummary s = level(FakeClient.answering(spec -> switch (spec.index()) {
            case 0, 1 -> new Failure(FailureKind.ERROR_IN_STREAM, 429, "Rate limit exceeded");
            case 2 -> new Failure(FailureKind.HTTP_STATUS, 503, "busy");
            default -> null;
        }), 6);
        assertEquals(Map.of(FailureCause.CAPACITY, "2x 429 error event [not retried], 1x 503"), s.failedAsByCause());
    }
}
