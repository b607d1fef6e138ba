package io.llmperf4j.report.metrics;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.testutil.Records;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunWarningsTest {

    /** A clean request: 100 events 10 ms apart, 100 tokens of max_tokens 150 by usage, client agrees. */
    private static Records ok(int i) {
        return request(i).evenEvents(100 * MS, 10 * MS, 100).e2e(1_100 * MS).usage(500, 100).client(101)
                .maxTokens(150).finish("length");
    }

    private static List<RequestRecord> clean(int n) {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) records.add(ok(i).build());
        return records;
    }

    private static RunMetrics metrics(List<RequestRecord> records, boolean timedOut) {
        return RunMetrics.of(Records.run(10_000 * MS, timedOut, records), MetricsConfig.DEFAULT);
    }

    private static String message(RunMetrics m, WarningCode code) {
        return m.warnings().stream().filter(w -> w.code() == code).findFirst().orElseThrow().message();
    }

    @Test
    void aCleanRunOfTenHasNoWarnings() {
        assertEquals(List.of(), metrics(clean(10), false).warnings());
    }

    /**
     * SERVER_TOKENS_DIFFER is added to metrics that already carry an open loop's keep-up verdict: the copy keeps it
     * (it was rebuilt through a constructor without it, so a summary lost kept_up whenever the warning fired).
     */
    @Test
    void theServersCountsBesideTheClientsKeepTheKeepUpVerdict() {
        RunMetrics m = metrics(clean(10), false).withKeptUp("no");
        // the server counted half the 1,000 tokens the client received in 1,000 events, no usage: a gap to warn of
        RunWarnings.ServerTokenCounts counts = new RunWarnings.ServerTokenCounts(500.0, 1_000, 1_000, 1_000, 1_000,
                false, false, null, null, null, null, false);
        RunMetrics beside = RunWarnings.besideServerCounts(m, counts);
        assertTrue(beside.hasWarning(WarningCode.SERVER_TOKENS_DIFFER), beside.warnings()::toString);
        assertEquals("no", beside.keptUp());
        assertEquals(m.delivered(), beside.delivered());
    }

    @Test
    void outputBeyondMaxTokensByTheServersCountIsAServerBug() {
        List<RequestRecord> records = clean(8);
        records.add(ok(8).usage(500, 160).client(161).build()); // 10 over max_tokens 150
        records.add(ok(9).usage(500, 180).client(181).build()); // 30 over
        records.add(ok(10).usage(500, 100).client(400).build()); // only the client counts more: not judged
        RunMetrics m = metrics(records, false);
        assertEquals("2 of 11 requests with server usage returned more output tokens than their max_tokens, by 20.0 "
                + "on average and at most 30 (180 tokens for max_tokens 150): the server did not honour max_tokens, "
                + "or a max_completion_tokens in --additional-sampling-params replaced it. Every token count, "
                + "throughput and TPOT includes "
                + "the extra tokens.", message(m, WarningCode.MAX_TOKENS_EXCEEDED));
        assertFalse(metrics(clean(10), false).hasWarning(WarningCode.MAX_TOKENS_EXCEEDED));
    }

    /**
     * QA (apis): "4 of 4 requests with server usage returned more output tokens than their max_tokens" on a run whose
     * 4 requests all failed. Failed requests count in no figure the warning speaks of: successes only.
     */
    @Test
    void maxTokensExceededCountsSuccessfulRequestsOnly() {
        List<RequestRecord> allFailed = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            allFailed.add(ok(i).usage(500, 160).failed(FailureKind.MALFORMED_EVENT, -1, "cut").build());
        }
        assertFalse(metrics(allFailed, false).hasWarning(WarningCode.MAX_TOKENS_EXCEEDED),
                () -> metrics(allFailed, false).warnings().toString());

        List<RequestRecord> mixed = clean(3);
        mixed.add(ok(3).usage(500, 170).build()); // a success 20 over max_tokens 150
        mixed.add(ok(4).usage(500, 190).failed(FailureKind.MALFORMED_EVENT, -1, "cut").build()); // failed: not counted
        assertTrue(message(metrics(mixed, false), WarningCode.MAX_TOKENS_EXCEEDED).startsWith("1 of 4 requests with "
                + "server usage returned more output tokens than their max_tokens, by 20.0 on average and at most 20 "
                + "(170 tokens for max_tokens 150)"), () -> message(metrics(mixed, false),
                WarningCode.MAX_TOKENS_EXCEEDED));
    }

    @Test
    void outputFarBeyondMaxTokensByTheClientUnderAUsageWithinItOrAbsentIsWarnedWithItsCounts() {
        // QA (slow_huge): 1,000,022 client tokens for max_tokens 20 under usage 20 read only as a tokenizer mismatch
        List<RequestRecord> records = clean(8);
        records.add(ok(8).usage(500, 150).client(1_000_023).build()); // BOS subtracted: 1,000,022
        records.add(request(9).evenEvents(100 * MS, 10 * MS, 100).e2e(1_100 * MS).client(401).maxTokens(150)
                .finish("length").build()); // 400, no usage
        records.add(ok(10).usage(500, 100).client(301).build()); // 300: twice max_tokens, not more
        records.add(ok(11).usage(500, 5).client(13).maxTokens(5).build()); // 12 for 5: only 7 over, a short answer
        records.add(ok(12).usage(500, 160).client(401).build()); // usage above max_tokens: MAX_TOKENS_EXCEEDED's
        RunMetrics m = metrics(records, false);
        assertEquals("2 of 13 requests with a client count streamed far more output than their max_tokens (the most: "
                + "1000022 tokens by the client tokenizer for max_tokens 150, its usage said 150; the server's usage "
                + "within max_tokens for 1 of them, absent for 1): the server ignored max_tokens or its usage is "
                + "wrong. A client tokenizer that is not the model's does not explain more than 2x. llmperf's files "
                + "and every figure counted by the client include the extra output; figures counted by the server's "
                + "usage do not.", message(m, WarningCode.OUTPUT_BEYOND_MAX_TOKENS));
        assertTrue(m.hasWarning(WarningCode.MAX_TOKENS_EXCEEDED));
        // the mismatch no longer blames the tokenizer alone
        assertTrue(message(m, WarningCode.TOKEN_COUNT_MISMATCH).endsWith(": the server streamed more than its usage "
                + "says (see OUTPUT_BEYOND_MAX_TOKENS), or the client tokenizer is not the model's. llmperf's files "
                + "use the client count."), () -> message(m, WarningCode.TOKEN_COUNT_MISMATCH));

        List<RequestRecord> noUsage = clean(9);
        noUsage.add(request(9).evenEvents(100 * MS, 10 * MS, 100).e2e(1_100 * MS).client(401).maxTokens(150)
                .finish("length").build());
        assertTrue(message(metrics(noUsage, false), WarningCode.OUTPUT_BEYOND_MAX_TOKENS).contains("(the most: 400 "
                + "tokens by the client tokenizer for max_tokens 150, no usage; the server's usage within max_tokens "
                + "for 0 of them, absent for 1): the server ignored max_tokens (or a max_completion_tokens in "
                + "--additional-sampling-params replaced it)."));
        assertFalse(metrics(clean(10), false).hasWarning(WarningCode.OUTPUT_BEYOND_MAX_TOKENS));
    }

    @Test
    void streamLinesWithoutDataAreWarnedAfterTheMissingEndMarkerWithAnExample() {
        List<RequestRecord> records = clean(8);
        io.llmperf4j.model.RequestTags tags = io.llmperf4j.model.RequestTags.NONE.withEndMarkerMissing()
                .withIgnoredStreamLines(2, "hello");
        records.add(ok(8).build().withTags(tags));
        records.add(request(9).e2e(MS).failed(FailureKind.HTTP_STATUS, 500, "boom").build()
                .withTags(io.llmperf4j.model.RequestTags.NONE.withIgnoredStreamLines(1, "{\"id\":1}")));
        RunMetrics m = metrics(records, false);
        assertEquals(List.of(WarningCode.FEW_SAMPLES, WarningCode.REQUESTS_FAILED, WarningCode.END_MARKER_MISSING,
                WarningCode.STREAM_LINES_IGNORED), m.warnings().stream().map(RunWarning::code).toList());
        assertEquals("2 of 10 requests had stream lines without data: (3 lines in all, e.g. hello): skipped, as the "
                + "SSE standard ignores unknown fields, so any output they carried is missing from generated_text "
                + "and the client's token counts (output_tokens_client, llmperf's number_output_tokens); the "
                + "server's usage, where sent, still counts it. The server or a proxy does not frame its stream as "
                + "SSE; check its version or proxy.", message(m, WarningCode.STREAM_LINES_IGNORED));
        // a whole chunk's JSON is quoted short
        assertTrue(RunWarnings.streamLinesIgnored(1, 1, 1, "x".repeat(100)).orElseThrow().message()
                .contains("e.g. " + "x".repeat(60) + "\u2026): skipped"));
    }

    @Test
    void streamsEndingWithoutTheirEndMarkerAreWarnedBeforeTheClientsBottleneck() {
        List<RequestRecord> records = clean(8);
        for (int i = 8; i < 10; i++) {
            records.add(ok(i).build().withTags(io.llmperf4j.model.RequestTags.NONE.withEndMarkerMissing()));
        }
        RunMetrics m = metrics(records, false);
        assertEquals(List.of(WarningCode.END_MARKER_MISSING), m.warnings().stream().map(RunWarning::code).toList());
        assertEquals("2 of 10 successful streams ended without data: [DONE] (Anthropic: event: message_stop) after "
                + "their finish reason: recorded as successes, as llmperf records them, but the server does not end "
                + "its streams as the API says; check its version or proxy.",
                message(m, WarningCode.END_MARKER_MISSING));
    }

    @Test
    void fewerThanTenSuccessesAreUnstable() {
        RunMetrics nine = metrics(clean(9), false);
        assertEquals(List.of(WarningCode.FEW_SAMPLES), nine.warnings().stream().map(RunWarning::code).toList());
        assertEquals("Only 9 successful requests (fewer than 10): percentiles are unstable. Run at least 50 "
                + "requests per load level.", message(nine, WarningCode.FEW_SAMPLES));
        assertEquals("No request was recorded: there are no latency or throughput numbers for this run.",
                message(metrics(List.of(), false), WarningCode.FEW_SAMPLES));
    }

    @Test
    void earlyStopFiresWhenStopRequestsEndFarBelowMaxTokens() {
        List<RequestRecord> records = clean(10);
        // 4 of 14 successes stopped at 30, 40, 45 and 140 of 150 tokens: median 42.5 tokens = 28 %
        int[] stops = {30, 40, 45, 140};
        for (int i = 0; i < stops.length; i++) {
            records.add(request(20 + i).evenEvents(100 * MS, 10 * MS, stops[i]).e2e(1_000 * MS)
                    .usage(500, stops[i]).client(stops[i] + 1).maxTokens(150).finish("stop").build());
        }
        RunMetrics m = metrics(records, false);
        assertTrue(m.hasWarning(WarningCode.EARLY_STOP));
        assertEquals("4 of 14 successful requests ended with finish_reason \"stop\" at a median 28% of max_tokens "
                + "(median 43 output tokens): the model stopped early, so throughput is inflated compared with the "
                + "length asked for. Force the length (ignore_eos or min_tokens, where the server supports them) or "
                + "say so in the report.", message(m, WarningCode.EARLY_STOP));
    }

    @Test
    void earlyStopStaysQuietForFullLengthStopsAndLengthFinishes() {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            // stopped at 80 of 150: 53 %, not early enough
            records.add(ok(i).usage(500, 80).client(81).finish("stop").build());
        }
        assertFalse(metrics(records, false).hasWarning(WarningCode.EARLY_STOP));
        // short outputs that hit max_tokens are not early stops
        List<RequestRecord> short_ = new ArrayList<>();
        for (int i = 0; i < 10; i++) short_.add(ok(i).usage(500, 10).client(11).maxTokens(10).build());
        assertFalse(metrics(short_, false).hasWarning(WarningCode.EARLY_STOP));
        // a single early stop among 20 length-limited requests is under the 10 % share
        List<RequestRecord> one = clean(19);
        one.add(ok(99).usage(500, 5).client(6).finish("stop").build());
        assertFalse(metrics(one, false).hasWarning(WarningCode.EARLY_STOP));
    }

    @Test
    void partialFailuresNameTheMostCommonStatusAndTheServersMessage() {
        // QA: a server answering every second request with 429 gave "(2 HTTP_STATUS)" and nothing to go on
        List<RequestRecord> limited = clean(2);
        limited.add(request(60).e2e(MS).failed(FailureKind.HTTP_STATUS, 429,
                "{\"error\":{\"message\":\"Rate limit exceeded\",\"type\":\"rate_limit_error\"}} [Retry-After: 1]").build());
        limited.add(request(61).e2e(MS).failed(FailureKind.HTTP_STATUS, 429,
                "{\"error\":{\"message\":\"Rate limit exceeded\",\"type\":\"rate_limit_error\"}} [Retry-After: 1]").build());
        assertTrue(message(metrics(limited, false), WarningCode.REQUESTS_FAILED).startsWith("2 of 4 requests failed "
                + "(2 HTTP_STATUS: 2x 429 Rate limit exceeded [Retry-After: 1 s; not retried]): the server may not "
                + "hold this load"));

        // an HTML page is its words, short; the most common status wins over a rarer one
        List<RequestRecord> pages = clean(2);
        String page = "<html><head><title>502</title></head><body><h1>502 Bad Gateway</h1><hr><center>nginx</center>"
                + "</body></html>";
        pages.add(request(62).e2e(MS).failed(FailureKind.HTTP_STATUS, 502, page).build());
        pages.add(request(63).e2e(MS).failed(FailureKind.HTTP_STATUS, 502, page).build());
        pages.add(request(64).e2e(MS).failed(FailureKind.HTTP_STATUS, 500, "x".repeat(300)).build());
        assertTrue(message(metrics(pages, false), WarningCode.REQUESTS_FAILED).startsWith("3 of 5 requests failed "
                + "(3 HTTP_STATUS: 2x 502 Bad Gateway nginx): "), "the status once");
        assertEquals("x".repeat(CommonFailures.MESSAGE_CHARS) + "...", CommonFailures.words("x".repeat(300)));
    }

    /** QA: a redirect seen mid-run was "not what the API promises" and its hint was cut at 80 characters. */
    @Test
    void aRedirectIsConfigurationAndItsHintIsQuotedWhole() {
        String redirect = "HTTP 302 redirect to https://gw.example/v2/chat/completions?token=[redacted]&sig=[redacted] "
                + "(the client does not follow redirects: point OPENAI_API_BASE at https://gw.example/v2)";
        List<RequestRecord> records = clean(10);
        records.add(request(90).e2e(MS).failed(FailureKind.HTTP_STATUS, 302, redirect).build());
        assertEquals("1 of 11 requests failed (1 HTTP_STATUS: 1x " + redirect + "): check the configuration (API "
                + "key, model id, base URL with its /v1, TLS trust): the server refused the requests or could not be "
                + "reached. Report the failure rate with the results.",
                message(metrics(records, false), WarningCode.REQUESTS_FAILED));
    }

    @Test
    void failuresAreWordedByCause() {
        List<RequestRecord> unauthorized = clean(10);
        unauthorized.add(request(70).e2e(MS).failed(FailureKind.HTTP_STATUS, 401, "Incorrect API key provided.").build());
        assertEquals("1 of 11 requests failed (1 HTTP_STATUS: 1x 401 Incorrect API key provided): check the configuration (API key, model id, base URL "
                + "with its /v1, TLS trust): the server refused the requests or could not be reached. Report the "
                + "failure rate with the results.", message(metrics(unauthorized, false), WarningCode.REQUESTS_FAILED));

        List<RequestRecord> tls = clean(10);
        tls.add(request(71).e2e(MS).failed(FailureKind.CONNECT_FAILED, -1, "PKIX path building failed").build());
        tls.add(request(72).e2e(MS).failed(FailureKind.HTTP_STATUS, 429, "rate limited").build());
        assertEquals("2 of 12 requests failed (1 HTTP_STATUS: 1x 429 rate limited [not retried], 1 CONNECT_FAILED): 1 point at the configuration and 1 "
                + "at capacity: check the configuration (API key, model id, base URL with its /v1, TLS trust): the "
                + "server refused the requests or could not be reached. Otherwise the server may not hold this load "
                + "(rate limits, server errors or timeouts). Report the failure rate with the results.",
                message(metrics(tls, false), WarningCode.REQUESTS_FAILED));

        // an error in the stream is judged by its code as a status is, and every failure is in the tally (QA:
        // "8 of 30 ... 3 point at the configuration and 3 at capacity" left out 2 in-stream 500s)
        List<RequestRecord> mixed = clean(10);
        mixed.add(request(80).e2e(MS).failed(FailureKind.HTTP_STATUS, 400, "invalid").build());
        mixed.add(request(81).e2e(MS).failed(FailureKind.HTTP_STATUS, 400, "invalid").build());
        mixed.add(request(82).e2e(MS).failed(FailureKind.HTTP_STATUS, 404, "no such model").build());
        mixed.add(request(83).e2e(MS).failed(FailureKind.HTTP_STATUS, 500, "internal").build());
        mixed.add(request(84).e2e(MS).failed(FailureKind.HTTP_STATUS, 500, "internal").build());
        mixed.add(request(85).e2e(MS).failed(FailureKind.ERROR_IN_STREAM, 500, "internal").build());
        mixed.add(request(86).e2e(MS).failed(FailureKind.ERROR_IN_STREAM, 500, "internal").build());
        mixed.add(request(87).e2e(MS).failed(FailureKind.CONNECTION_CLOSED, -1, "closed").build());
        assertEquals("8 of 18 requests failed (5 HTTP_STATUS: 2x 400 invalid, 2 ERROR_IN_STREAM: 2x 500 internal, "
                + "1 CONNECTION_CLOSED): 3 point at "
                + "the configuration and 5 at capacity: check the configuration (API key, model id, base URL with "
                + "its /v1, TLS trust): the server refused the requests or could not be reached. Otherwise the server "
                + "may not hold this load (rate limits, server errors, timeouts or dropped connections), or it failed "
                + "or stopped while answering (error events in streams it had accepted, a crash, a restart?): check "
                + "its logs. Report the failure rate with the results.", message(metrics(mixed, false),
                WarningCode.REQUESTS_FAILED));

        // QA s44: vLLM's error event says 400 for any exception in its generator; after tokens it is the server
        // failing while serving, not a refusal ("check the configuration ...: the server refused the requests")
        List<RequestRecord> midStream = clean(10);
        for (int i = 0; i < 3; i++) {
            midStream.add(request(95 + i).evenEvents(100 * MS, 10 * MS, 2).e2e(130 * MS)
                    .failed(FailureKind.ERROR_IN_STREAM, 400, "vLLM engine error").build());
        }
        assertEquals("3 of 13 requests failed (3 ERROR_IN_STREAM: 3x 400 vLLM engine error): the server may not hold "
                + "this load (rate limits, server errors or timeouts), or it failed while answering (error events in "
                + "streams it had accepted: an engine error?): check its logs. Report the failure rate with the "
                + "results.", message(metrics(midStream, false), WarningCode.REQUESTS_FAILED));

        // a connection closed mid-stream is what a server that stops leaves too: not blamed on the API
        List<RequestRecord> cut = clean(10);
        cut.add(request(88).e2e(MS).failed(FailureKind.CONNECTION_CLOSED, -1, "the server (h:1) closed the "
                + "connection after 4 events without data: [DONE] or a finish reason: it stopped (crash, restart?) "
                + "or its API does not end streams").build());
        assertEquals("1 of 11 requests failed (1 CONNECTION_CLOSED): the server may not hold this load (rate limits, "
                + "server errors, timeouts or dropped connections), or it stopped while answering (a crash, a "
                + "restart?): check its logs. Report the failure rate with the results.",
                message(metrics(cut, false), WarningCode.REQUESTS_FAILED));

        // an in-stream 400 before any token is the configuration; one without a code and a malformed stream point at
        // neither
        List<RequestRecord> uncoded = clean(10);
        uncoded.add(request(90).e2e(MS).failed(FailureKind.ERROR_IN_STREAM, 400, "max_tokens too large").build());
        uncoded.add(request(91).e2e(MS).failed(FailureKind.ERROR_IN_STREAM, -1, "overloaded").build());
        uncoded.add(request(92).e2e(MS).failed(FailureKind.MALFORMED_EVENT, -1, "bad json").build());
        uncoded.add(request(93).e2e(MS).failed(FailureKind.HTTP_STATUS, 429, "slow down").build());
        assertEquals("4 of 14 requests failed (1 HTTP_STATUS: 1x 429 slow down [not retried], 2 ERROR_IN_STREAM: 1x 400 max_tokens too "
                + "large, 1 MALFORMED_EVENT): 1 point at the "
                + "configuration, 1 at capacity and 2 at neither: check the configuration (API key, model id, base "
                + "URL with its /v1, TLS trust): the server refused the requests or could not be reached. Otherwise "
                + "the server may not hold this load (rate limits, server errors or timeouts). For the rest: the "
                + "server reported errors without a status code, or its responses were not what the API promises: "
                + "read the messages of the failure kinds; check that the endpoint is the API named by --llm-api. "
                + "Report the failure rate with the results.", message(metrics(uncoded, false),
                WarningCode.REQUESTS_FAILED));

        // a load worker that left the cluster: its requests are LOST, no fault of the server's; one is one (the QA
        // read "1 were lost")
        List<RequestRecord> oneLost = clean(10);
        oneLost.add(request(72).e2e(-1).failed(FailureKind.LOST, -1, "worker left").build());
        assertEquals("1 of 11 requests failed (1 LOST): 1 was lost with a load worker that left the cluster "
                + "mid-run (no fault of the server's; see the coordinator's log for which). Report the failure rate "
                + "with the results.", message(metrics(oneLost, false), WarningCode.REQUESTS_FAILED));
        List<RequestRecord> lost = clean(10);
        lost.add(request(73).e2e(-1).failed(FailureKind.LOST, -1, "worker left").build());
        lost.add(request(74).e2e(-1).failed(FailureKind.LOST, -1, "worker left").build());
        assertEquals("2 of 12 requests failed (2 LOST): 2 were lost with a load worker that left the cluster "
                + "mid-run (no fault of the server's; see the coordinator's log for which). Report the failure rate "
                + "with the results.", message(metrics(lost, false), WarningCode.REQUESTS_FAILED));
        lost.add(request(75).e2e(MS).failed(FailureKind.HTTP_STATUS, 503, "busy").build());
        assertTrue(message(metrics(lost, false), WarningCode.REQUESTS_FAILED).contains("2 were lost with a load "
                + "worker that left the cluster mid-run (no fault of the server's; see the coordinator's log for "
                + "which); of the others: the server may not hold this load"));
    }

    @Test
    void anyFailureIsReportedAndCancellationsSeparately() {
        List<RequestRecord> records = clean(10);
        records.add(request(50).e2e(30 * MS).failed(FailureKind.HTTP_STATUS, 503, "Service Unavailable").build());
        records.add(request(51).e2e(30 * MS).failed(FailureKind.HTTP_STATUS, 503, "Service Unavailable").build());
        records.add(request(52).e2e(9_000 * MS).failed(FailureKind.IDLE_TIMEOUT, -1, "idle").build());
        records.add(request(53).evenEvents(100 * MS, 10 * MS, 5).e2e(2_000 * MS)
                .failed(FailureKind.CANCELLED, -1, "run ended").build());
        RunMetrics m = metrics(records, true);
        assertEquals("3 of 14 requests failed (2 HTTP_STATUS: 2x 503 Service Unavailable, 1 IDLE_TIMEOUT): the server may not hold this load "
                + "(rate limits, server errors or timeouts). Report the failure rate with the results.", message(m, WarningCode.REQUESTS_FAILED));
        assertEquals("1 request was still in flight when the run ended at its timeout and was cancelled: counted as "
                + "failures in the error rate, absent from the latency statistics; the good fraction (with --slo) "
                + "counts one as not good only when it had already outlived a TTFT or E2E bound, and leaves the "
                + "others out.",
                message(m, WarningCode.REQUESTS_CANCELLED));

        List<RequestRecord> onlyCancelled = clean(10);
        onlyCancelled.add(request(60).e2e(10 * MS).failed(FailureKind.CANCELLED, -1, "signal").build());
        RunMetrics cancelled = metrics(onlyCancelled, false);
        assertFalse(cancelled.hasWarning(WarningCode.REQUESTS_FAILED));
        assertTrue(message(cancelled, WarningCode.REQUESTS_CANCELLED).contains("when the run ended and was"));
    }

    @Test
    void contentAndTokenCountWarnings() {
        List<RequestRecord> records = clean(10);
        records.add(request(70).events().e2e(200 * MS).usage(500, 0).client(1).finish("stop").maxTokens(0).build());
        records.add(request(71).evenEvents(100 * MS, 10 * MS, 5).e2e(200 * MS).build());
        RunMetrics m = metrics(records, false);
        assertTrue(message(m, WarningCode.NO_CONTENT).startsWith("1 of 12 successful requests streamed no content"));
        assertTrue(message(m, WarningCode.TOKENS_UNCOUNTED).startsWith("1 of 12 successful requests have no output"));
    }

    @Test
    void multiTokenChunksAreFlagged() {
        List<RequestRecord> records = new ArrayList<>();
        // 25 events carrying 100 tokens: 4 tokens per event (speculative decoding, batching proxies)
        for (int i = 0; i < 10; i++) {
            records.add(request(i).evenEvents(100 * MS, 40 * MS, 25).e2e(1_100 * MS).usage(500, 100).build());
        }
        RunMetrics m = metrics(records, false);
        // the server's count, spread over the events, gives per-token ITL without a client tokenizer
        assertEquals("Content events carry 4.0 output tokens each on average (by the server's usage count): ITL (per "
                + "event) is the gap between chunks, not between tokens. ITL (per token) splits each gap over its "
                + "tokens; TPOT is the per-request average.",
                message(m, WarningCode.MULTI_TOKEN_CHUNKS));

        // no usage and no client count per event (a tokenizer without offsets): the client's n, and no per-token ITL
        List<RequestRecord> clientOnly = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            clientOnly.add(request(i).evenEvents(100 * MS, 40 * MS, 25).e2e(1_100 * MS).client(101).build());
        }
        assertEquals("Content events carry 4.0 output tokens each on average (by the client tokenizer's count, which "
                + "may not be the model's): ITL (per event) is the gap between chunks, not between tokens. Use TPOT "
                + "for per-token latency (ITL per token needs tokens per event: server usage or the client "
                + "tokenizer's offsets).", message(metrics(clientOnly, false), WarningCode.MULTI_TOKEN_CHUNKS));

        List<RequestRecord> mixed = new ArrayList<>(records.subList(0, 4));
        mixed.addAll(clientOnly.subList(4, 10));
        assertTrue(message(metrics(mixed, false), WarningCode.MULTI_TOKEN_CHUNKS).startsWith("Content events carry "
                + "4.0 output tokens each on average (by the server's usage count for 4 of 10 requests, the client "
                + "tokenizer's for the rest): "), m.warnings()::toString);
    }

    @Test
    void oneServerTokenPerEventIsNoMultiTokenChunkWhateverTheClientTokenizerCounts() {
        // the QA's server: 20 words like "w12 " (3 Llama-2 tokens each), one server token each, usage 20
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int[] threes = new int[20];
            java.util.Arrays.fill(threes, 3);
            records.add(request(i).evenEvents(100 * MS, 10 * MS, 20).eventTokens(threes).e2e(300 * MS)
                    .usage(500, 20).client(61).build());
        }
        RunMetrics m = metrics(records, false);
        assertFalse(m.hasWarning(WarningCode.MULTI_TOKEN_CHUNKS), m.warnings()::toString);
        assertEquals(10.0, m.stats(Metric.ITL_PER_TOKEN).p50() / MS, 1e-9, "one token per 10 ms gap");
        assertEquals(10 * 19, m.stats(Metric.ITL_PER_TOKEN).count());
    }

    @Test
    void reasoningTokensAreNoMultiTokenChunks() {
        // a reasoning model (serve --reasoning-tokens): usage counts 75 reasoning + 25 content tokens, streamed as 25
        // content events of one token each: the content events carry 1 token, not 100 / 25
        List<RequestRecord> counted = new ArrayList<>();
        List<RequestRecord> uncounted = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int[] ones = new int[25];
            java.util.Arrays.fill(ones, 1);
            counted.add(request(i).reasoning(20 * MS).evenEvents(100 * MS, 40 * MS, 25).eventTokens(ones)
                    .e2e(1_100 * MS).usage(500, 100).client(26).build());
            // no per-event count (--tokenizer server): the output count includes the reasoning, so it is not judged
            uncounted.add(request(i).reasoning(20 * MS).evenEvents(100 * MS, 40 * MS, 25).e2e(1_100 * MS)
                    .usage(500, 100).build());
        }
        for (List<RequestRecord> records : List.of(counted, uncounted)) {
            RunMetrics m = metrics(records, false);
            assertFalse(m.hasWarning(WarningCode.MULTI_TOKEN_CHUNKS), m.warnings()::toString);
        }

        // the content events' own count still finds real multi-token chunks: 25 events of 4 content tokens
        List<RequestRecord> chunked = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int[] fours = new int[25];
            java.util.Arrays.fill(fours, 4);
            chunked.add(request(i).reasoning(20 * MS).evenEvents(100 * MS, 40 * MS, 25).eventTokens(fours)
                    .e2e(1_100 * MS).usage(500, 150).client(101).build());
        }
        assertEquals("Content events carry 4.0 output tokens each on average (by the client tokenizer's count, which "
                + "may not be the model's): ITL (per event) is the gap between chunks, not between tokens. ITL (per "
                + "token) splits each gap over its tokens; TPOT is the per-request average.",
                message(metrics(chunked, false), WarningCode.MULTI_TOKEN_CHUNKS));
    }

    /** A clean request whose usage reports {@code cached} of its 500 prompt tokens (null: no count). */
    private static RequestRecord cached(int i, Integer cached) {
        RequestRecord r = ok(i).build();
        return r.withTags(r.tags().withCachedTokens(cached));
    }

    @Test
    void mostPromptTokensFromThePrefixCacheAreWarnedAboveHalf() {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 8; i++) records.add(cached(i, 496));
        records.add(cached(8, null)); // vLLM omits a 0: counted as 0 once another request reported a count
        records.add(cached(9, 16));
        RunWarning w = RunWarnings.prefixCacheReused(records).orElseThrow();
        assertEquals(WarningCode.PREFIX_CACHE_REUSED, w.code());
        assertEquals("79.7 % of the prompt tokens (3984 of 5000) came from the server's prefix cache, though this "
                + "workload's prompts do not share prefixes by design: they were sent to this server before, by an "
                + "earlier run with the same --seed, so TTFT measures cached prefill. Use another --seed, or restart "
                + "the server (or reset its prefix cache).", w.message());

        RunMetrics m = metrics(clean(10), false).withWarning(w);
        assertEquals(WarningCode.PREFIX_CACHE_REUSED, m.warnings().get(m.warnings().size() - 1).code());

        List<RequestRecord> half = new ArrayList<>();
        for (int i = 0; i < 10; i++) half.add(cached(i, 250)); // exactly half: not more than half
        assertTrue(RunWarnings.prefixCacheReused(half).isEmpty());
        assertTrue(RunWarnings.prefixCacheReused(clean(10)).isEmpty(), "no cached-token count: the server says nothing");
    }

    @Test
    void aComparisonsLaterModelNamesTheEarlierModelsAsWhoSentItsPromptsBefore() {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) records.add(cached(i, 496));
        List<RunWarnings.PromptSends> sends = List.of(new RunWarnings.PromptSends(List.of(), records));
        assertEquals("99.2 % of the prompt tokens (4960 of 5000) came from the server's prefix cache, though this "
                + "workload's prompts do not share prefixes by design: they were sent to this server before, by this "
                + "comparison's model a (the same prompts, just before: this server shares one prefix cache across "
                + "its model names) or by an earlier run with the same --seed, so TTFT measures cached prefill. "
                + "Compare models on servers that do not share a cache, or use another --seed, or restart the "
                + "server (or reset its prefix cache).",
                RunWarnings.prefixCacheReused(sends, true, 0, List.of("a")).orElseThrow().message());
        assertTrue(RunWarnings.prefixCacheReused(sends, true, 0, List.of("a", "b")).orElseThrow().message()
                .contains("by this comparison's models a, b (the same prompts"));
        // the first model of a comparison, or a run of one model, names an earlier run only
        assertEquals(RunWarnings.prefixCacheReused(records).orElseThrow().message(),
                RunWarnings.prefixCacheReused(sends, true, 0, List.of()).orElseThrow().message());
    }

    /** Request {@code n} of a sequence, sending prompt {@code prompt}, {@code cached} of its 500 tokens cached. */
    private static RequestRecord sent(int n, int prompt, int cached) {
        RequestRecord r = request(prompt).evenEvents(100 * MS, 10 * MS, 100).e2e(1_100 * MS).usage(500, 100)
                .client(101).maxTokens(150).finish("length").start(1_000_000L * n).build();
        return r.withTags(r.tags().withCachedTokens(cached));
    }

    @Test
    void aRunThatSentItsOwnPromptsAgainIsToldSoNotAnEarlierRun() {
        // 4 prompts sent 3 times (a fixed workload in a loop): the first pass finds the instruction's block cached
        List<RequestRecord> looped = new ArrayList<>();
        for (int n = 0; n < 12; n++) looped.add(sent(n, n % 4, n < 4 ? 16 : 496));
        String own = "67.2 % of the prompt tokens (4032 of 6000) came from the server's prefix cache: this run sent "
                + "its own prompts again (8 of its 12 requests repeated one of the 4 prompts it had sent: a workload "
                + "sent in a loop), and the cache served the repeats, so TTFT measures cached prefill. Send each "
                + "prompt once: more prompts (--max-num-completed-requests, a larger dataset) or a shorter run.";
        for (boolean drawnFresh : new boolean[]{false, true}) {
            assertEquals(own, RunWarnings.prefixCacheReused(List.of(new RunWarnings.PromptSends(List.of(), looped)),
                    drawnFresh).orElseThrow().message());
        }
        // the first pass cached too, of prompts drawn not to share: an earlier run sent them as well
        List<RequestRecord> rerun = new ArrayList<>();
        for (int n = 0; n < 12; n++) rerun.add(sent(n, n % 4, 496));
        assertTrue(RunWarnings.prefixCacheReused(List.of(new RunWarnings.PromptSends(List.of(), rerun)), true)
                .orElseThrow().message().endsWith("so TTFT measures cached prefill; the prompts it sent first were "
                        + "cached too, sent before by an earlier run with the same --seed. Send each prompt once: more "
                        + "prompts (--max-num-completed-requests, a larger dataset) or a shorter run; and use another "
                        + "--seed, or restart the server (or reset its prefix cache)."));
    }

    @Test
    void warmupPromptsCountAsSentAndAWorkloadSentOnceIsNotBlamedOnItself() {
        // the warmup sent prompts 0-4; the measured requests send 5-9, then 0-4 again, found cached
        List<RequestRecord> warmup = new ArrayList<>();
        for (int n = 0; n < 5; n++) warmup.add(sent(n, n, 16));
        List<RequestRecord> measured = new ArrayList<>();
        for (int n = 5; n < 15; n++) measured.add(sent(n, n % 10, n < 10 ? 16 : 496));
        List<RequestRecord> moreMeasured = new ArrayList<>(measured);
        for (int n = 15; n < 20; n++) moreMeasured.add(sent(n, n % 10, 496)); // 5-9 again
        assertTrue(RunWarnings.prefixCacheReused(List.of(new RunWarnings.PromptSends(warmup, moreMeasured)), false)
                .orElseThrow().message().contains("this run sent its own prompts again (10 of its 15 requests "
                        + "repeated one of the 10 prompts it had sent"));
        // each prompt once, mostly cached: prompts drawn not to share blame an earlier run; a dataset (which may
        // share by design) is not warned
        List<RequestRecord> once = new ArrayList<>();
        for (int n = 0; n < 10; n++) once.add(sent(n, n, 496));
        List<RunWarnings.PromptSends> onceSent = List.of(new RunWarnings.PromptSends(List.of(), once));
        assertTrue(RunWarnings.prefixCacheReused(onceSent, true).orElseThrow().message().contains("by an earlier "
                + "run with the same --seed"));
        assertTrue(RunWarnings.prefixCacheReused(onceSent, false).isEmpty());
        // two forks number their own prompts: the same index in another fork is another prompt
        assertTrue(RunWarnings.prefixCacheReused(List.of(onceSent.get(0), onceSent.get(0)), true).orElseThrow()
                .message().contains("by an earlier run with the same --seed"));
    }

    /** A clean request of {@code prompt} tokens whose usage reports {@code cached} of them, sending prompt {@code n}. */
    private static RequestRecord shortPrompt(int n, int prompt, int cached) {
        RequestRecord r = request(n).evenEvents(100 * MS, 10 * MS, 100).e2e(1_100 * MS).usage(prompt, 100)
                .client(101).maxTokens(150).finish("length").start(1_000_000L * n).build();
        return r.withTags(r.tags().withCachedTokens(cached));
    }

    @Test
    void theStartEveryPromptSharesByDesignIsNoEarlierRun() {
        // 50-token prompts that all start with a 27-token instruction: a fresh server serves its blocks (of 16) to
        // every request after the first, the second one with the first corpus line, sent before: 57.6 % cached
        List<RequestRecord> fresh = new ArrayList<>();
        fresh.add(shortPrompt(0, 50, 0));
        for (int n = 1; n < 10; n++) fresh.add(shortPrompt(n, 50, 32));
        List<RunWarnings.PromptSends> freshSent = List.of(new RunWarnings.PromptSends(List.of(), fresh));
        assertTrue(RunWarnings.prefixCacheReused(freshSent, true).isPresent(), "without the shared start: warned");
        assertTrue(RunWarnings.prefixCacheReused(freshSent, true, 27).isEmpty(), "the instruction explains it");
        // the same prompts sent before: every block but the last cached, well past the instruction
        List<RequestRecord> rerun = new ArrayList<>();
        for (int n = 0; n < 10; n++) rerun.add(shortPrompt(n, 50, 48));
        assertEquals("96.0 % of the prompt tokens (480 of 500) came from the server's prefix cache, though this "
                + "workload's prompts do not share prefixes by design: they were sent to this server before, by an "
                + "earlier run with the same --seed, so TTFT measures cached prefill. Use another --seed, or restart "
                + "the server (or reset its prefix cache).", RunWarnings.prefixCacheReused(List.of(
                        new RunWarnings.PromptSends(List.of(), rerun)), true, 27).orElseThrow().message());
    }

    @Test
    void responsesInOneEventAreNoMultiTokenChunks() {
        List<RequestRecord> records = new ArrayList<>();
        // --no-stream: each response is one event of 100 tokens, and has no gap between chunks to misread
        for (int i = 0; i < 10; i++) {
            records.add(request(i).evenEvents(1_000 * MS, 0, 1).e2e(1_000 * MS).usage(500, 100).build());
        }
        RunMetrics m = metrics(records, false);
        assertTrue(m.warnings().stream().noneMatch(w -> w.code() == WarningCode.MULTI_TOKEN_CHUNKS),
                m.warnings()::toString);
    }

    @Test
    void clientAndServerCountsThatDisagreeAreFlagged() {
        List<RequestRecord> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            // a different tokenizer: the client counts 120 (+BOS) where the server generated 100
            records.add(ok(i).client(121).build());
        }
        RunMetrics m = metrics(records, false);
        assertEquals("The client tokenizer and the server's usage disagree on the output tokens of 10 of 10 requests "
                + "(mean |difference| 20.0, max 20 tokens, after subtracting 1 special token): the client tokenizer "
                + "is probably not the model's. llmperf's files use the client count.",
                message(m, WarningCode.TOKEN_COUNT_MISMATCH));
        // the BOS alone is not a mismatch: clean() counts 101 against 100
        assertFalse(metrics(clean(10), false).hasWarning(WarningCode.TOKEN_COUNT_MISMATCH));

        // a reasoning model: the server's count holds the reasoning tokens the client never saw as content
        List<RequestRecord> reasoned = new ArrayList<>();
        for (int i = 0; i < 10; i++) reasoned.add(ok(i).reasoning(50 * MS).client(81).build());
        assertTrue(message(metrics(reasoned, false), WarningCode.TOKEN_COUNT_MISMATCH)
                .contains("): the server's count includes the reasoning tokens, which the client never counts"));
    }
}
