package io.llmperf4j.run;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The failed run's lines: whose words, and messages that differ only in numbers counted as one. */
class FailureGateTest {

    private static RequestRecord failed(FailureKind kind, int code, String message) {
        return new RequestRecord(0, "id", null, 0L, RequestRecord.NEVER, RequestRecord.NEVER, RequestRecord.NEVER, 0,
                null, "", 0, 1, -1, null, null, null, new Failure(kind, code, message));
    }

    private static String judge(List<RequestRecord> records) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        RunStatus status = new FailureGate(Double.NaN).judge(records, new PrintStream(err, true,
                StandardCharsets.UTF_8));
        assertEquals(RunStatus.REQUESTS_FAILED, status);
        return err.toString(StandardCharsets.UTF_8);
    }

    /**
     * The QA's closed loop that lost a worker: 160 recorded (4 LOST), 80 never sent of 240 asked. --max-error-rate 5
     * passed on 4 of 160 (2.5 %); the requests never sent count against the asked count too: 84 of 240.
     */
    @Test
    void requestsALostWorkerNeverSentCountAgainstMaxErrorRate() {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 156; i++) {
            records.add(new RequestRecord(i, "ok" + i, "s", 0L, 10, 20, 30, 2, new long[] {10, 20}, "ab", 5, 8, 2, 5,
                    2, "stop", null));
        }
        for (int i = 0; i < 4; i++) records.add(failed(FailureKind.LOST, -1, "lost: worker w2 left the cluster"));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);

        assertEquals(RunStatus.COMPLETED, new FailureGate(5).judge(records, errStream), "4 of 160: 2.5 %");
        assertEquals(RunStatus.REQUESTS_FAILED, new FailureGate(5).judge(records, 80, errStream));
        assertEquals("llmperf4j: the run failed: 84 of 240 requests failed or were never sent (80 not sent: their "
                + "load worker left the cluster) (35.0%, above --max-error-rate 5%):",
                err.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow());
    }

    @Test
    void cancellationsAreTheClientsNotTheServers() {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 3; i++) records.add(failed(FailureKind.CANCELLED, -1, "cancelled while in flight"));
        assertEquals("llmperf4j: the run failed: every request failed (3 of 3):\n"
                + "  CANCELLED x3, the client cancelled them at --timeout (in flight when the run ended):\n"
                + "    3x cancelled while in flight\n", judge(records));
    }

    @Test
    void messagesThatDifferOnlyInNumbersAreOneLineWithTheirRanges() {
        List<RequestRecord> records = new ArrayList<>();
        for (int ms : new int[]{1000, 1000, 1001, 1029, 1000, 1100, 1101, 1000}) {
            records.add(failed(FailureKind.IDLE_TIMEOUT, -1, "no bytes from 127.0.0.1:18950 for " + ms
                    + " ms (idle timeout 1000 ms) while waiting for the response"));
        }
        records.add(failed(FailureKind.HTTP_STATUS, 503, "busy, retry in 2 s"));
        records.add(failed(FailureKind.HTTP_STATUS, 429, "busy, retry in 2 s"));
        records.add(failed(FailureKind.HTTP_STATUS, 429, "busy, retry in 5 s"));
        assertEquals("llmperf4j: the run failed: every request failed (11 of 11):\n"
                + "  IDLE_TIMEOUT x8, the client gave up at --idle-timeout:\n"
                + "    8x no bytes from 127.0.0.1:18950 for 1000-1101 ms (idle timeout 1000 ms) while waiting for "
                + "the response\n"
                + "  HTTP_STATUS x3, the server said:\n"
                + "    2x 429 busy, retry in 2-5 s [not retried]\n"
                + "    1x 503 busy, retry in 2 s\n", judge(records), "a status code is never merged with another");
    }

    @Test
    void aRedirectKeepsItsHintHoweverLongItsLocation() {
        String location = "https://gateway.example.com/" + "deployments/a-very-long-deployment-name/".repeat(4)
                + "v1/chat/completions?api-version=2024-06-01";
        String message = "HTTP 308 redirect to " + location + " (the client does not follow redirects: point "
                + "OPENAI_API_BASE at https://gateway.example.com/v1)";
        List<RequestRecord> records = List.of(failed(FailureKind.HTTP_STATUS, 308, message));
        assertEquals("llmperf4j: the run failed: every request failed (1 of 1):\n"
                + "  HTTP_STATUS x1, the server said:\n"
                + "    1x " + message + "\n", judge(records), "the status once: the words name it");
    }

    /** QA: an error body that claims gzip but is not was cut at 120 characters, its coding's words with it. */
    @Test
    void anUnreadableErrorBodyIsTheClientsWordsQuotedWholeWithItsStatusOnce() {
        String message = "the HTTP 500 response from gateway.example.com:443 said Content-Encoding: gzip but its body "
                + "is not gzip data (Input is not in the GZIP format)";
        assertEquals("llmperf4j: the run failed: every request failed (1 of 1):\n"
                + "  HTTP_STATUS x1, the server said:\n"
                + "    1x " + message + "\n", judge(List.of(failed(FailureKind.HTTP_STATUS, 500, message))));
    }

    /** QA: a --timeout the warmup used up exited 0 with "0 requests (0 ok, 0 failed)". */
    @Test
    void aRunThatMeasuredNothingFailed() {
        assertEquals("llmperf4j: the run failed: no measured request ended, so there is no figure: the run's time "
                + "(--timeout) ran out before one did, during warmup (--warmup-requests) or the first requests; give "
                + "it more time\n", judge(List.of()));
    }
}
