package io.llmperf4j.report.compare;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.START_EPOCH_MICROS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.csv.RequestCsvWriter;
import io.llmperf4j.report.jsonl.RequestJournal;
import io.llmperf4j.report.metrics.RequestMetrics;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.metrics.TokenSource;
import io.llmperf4j.report.testutil.Records;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunSamplesTest {

    static final List<RequestRecord> RECORDS = List.of(
            request(0).start(START_EPOCH_MICROS).evenEvents(250 * MS, 20 * MS, 51).e2e(1_250 * MS + 1)
                    .usage(540, 51).client(52).build(),
            request(1).start(START_EPOCH_MICROS + 100_000).evenEvents(300 * MS, 20 * MS, 26).e2e(800 * MS)
                    .client(27).build(),
            request(2).start(START_EPOCH_MICROS + 200_000).e2e(2_000 * MS)
                    .failed(FailureKind.HTTP_STATUS, 503, "busy, \"try\" later").build());

    private static String csv(List<RequestRecord> records) throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(records, out);
        return out.toString();
    }

    @Test
    void csvRoundTripGivesTheSameMetricsAsMemory() throws IOException {
        RunSamples fromCsv = RunSamples.readCsv(new StringReader(csv(RECORDS)), "run", TokenCounting.DEFAULT, "mem");
        RunSamples inMemory = RunSamples.of("run", Records.run(3_000 * MS, false, RECORDS), TokenCounting.DEFAULT);
        for (CompareMetric metric : CompareMetric.values()) {
            if (metric.pooled()) {
                assertEquals(0, fromCsv.sortedValues(metric).length, "the CSV has no event times: " + metric.key());
                // the records carry event times but no client tokens per event: per-token ITL from the first
                // record's server usage, spread over its events (one token each)
                assertTrue(inMemory.sortedValues(metric).length > 0, metric.key());
            } else if (metric.perRequest()) {
                assertArrayEquals(inMemory.sortedValues(metric), fromCsv.sortedValues(metric), metric.key());
            } else {
                assertEquals(inMemory.runValue(metric), fromCsv.runValue(metric), metric.key());
            }
        }
        RequestMetrics first = fromCsv.requests().get(0);
        assertEquals(250 * MS, first.ttftNanos().getAsLong());
        assertEquals(1_250 * MS + 1, first.e2eNanos());
        assertEquals(TokenSource.SERVER_USAGE, first.outputTokenSource());
        assertEquals(20.0 * MS + 1 / 50.0, first.tpotNanos().getAsDouble(), 1e-6);
        assertEquals(TokenSource.CLIENT_TOKENIZER, fromCsv.requests().get(1).outputTokenSource());
        assertEquals(26, fromCsv.requests().get(1).outputTokens().getAsInt());
        assertEquals(FailureKind.HTTP_STATUS, fromCsv.requests().get(2).failureKind());
        assertEquals(503, fromCsv.requests().get(2).failureCode());
    }

    @Test
    void runLevelValuesUseTheRequestWindow() throws IOException {
        RunSamples s = RunSamples.readCsv(new StringReader(csv(RECORDS)), "run", TokenCounting.DEFAULT, "mem");
        // first send at t0, last end at t0 + 200 ms + 2000 ms
        assertEquals(2_200 * MS, s.windowNanos());
        assertEquals((51 + 26) / 2.2, s.runValue(CompareMetric.OUTPUT_THROUGHPUT), 1e-9);
        assertEquals(2 / 2.2, s.runValue(CompareMetric.REQUEST_THROUGHPUT), 1e-12);
        assertEquals(1 / 3.0, s.runValue(CompareMetric.ERROR_RATE), 1e-12);
        assertEquals(3, s.recorded());
        assertEquals(2, s.succeeded());
        assertArrayEquals(new double[] {250.0, 300.0}, s.sortedValues(CompareMetric.TTFT));
    }

    @Test
    void readsTheCsvOfAResultsDirectory(@TempDir Path dir) throws IOException {
        Path run = Files.createDirectories(dir.resolve("vllm-0.6"));
        RequestCsvWriter.write(RECORDS, run.resolve("meta-llama-Llama-2-7b-chat-hf_550_150_requests.csv"));
        Files.writeString(run.resolve("meta-llama-Llama-2-7b-chat-hf_550_150_summary.json"), "{}");
        RunSamples s = RunSamples.read(run, TokenCounting.DEFAULT);
        assertEquals("vllm-0.6", s.label());
        assertEquals(3, s.recorded());
        assertEquals("meta-llama-Llama-2-7b-chat-hf_550_150_requests.csv",
                RunSamples.read(run.resolve("meta-llama-Llama-2-7b-chat-hf_550_150_requests.csv"),
                        TokenCounting.DEFAULT).label());
    }

    @Test
    void ratesDivideByTheRunsOwnWindowFromItsSummary(@TempDir Path dir) throws IOException {
        // the QA's run: console, JSON and HTML said 156.59 tok/s over 4.905 s; compare said 156.94 over 4.894 s,
        // the window rebuilt from the records (first send stamp to last end), a few ms shorter than the run's
        Path run = Files.createDirectories(dir.resolve("run"));
        RequestCsvWriter.write(RECORDS, run.resolve("m_550_150_requests.csv"));
        Path summary = run.resolve("m_550_150_llmperf4j_summary.json");
        Files.writeString(summary, "{\"run\": {\"duration_s\": 2.5, \"requests_recorded\": 3}}");
        RunSamples s = RunSamples.read(run, TokenCounting.DEFAULT);
        assertEquals(2_500 * MS, s.windowNanos());
        assertEquals((51 + 26) / 2.5, s.runValue(CompareMetric.OUTPUT_THROUGHPUT), 1e-9);
        assertEquals(2 / 2.5, s.runValue(CompareMetric.REQUEST_THROUGHPUT), 1e-12);
        // a CSV file read alone finds its folder's summary too
        assertEquals(2_500 * MS, RunSamples.read(run.resolve("m_550_150_requests.csv"), TokenCounting.DEFAULT)
                .windowNanos());
        // a summary of other requests (another run's, left in the folder) is not this run's window
        Files.writeString(summary, "{\"run\": {\"duration_s\": 2.5, \"requests_recorded\": 4}}");
        assertEquals(2_200 * MS, RunSamples.read(run, TokenCounting.DEFAULT).windowNanos());
    }

    @Test
    void itlComesFromTheJournalOfAResultsDirectory(@TempDir Path dir) throws IOException {
        Path run = Files.createDirectories(dir.resolve("run"));
        RequestCsvWriter.write(RECORDS, run.resolve("m_550_150_requests.csv"));
        assertEquals(RunSamples.CSV_SOURCE, RunSamples.read(run, TokenCounting.DEFAULT).source());
        try (RequestJournal journal = RequestJournal.create(run)) {
            RECORDS.forEach(journal::append);
        }
        RunSamples s = RunSamples.read(run, TokenCounting.DEFAULT);
        assertEquals(RequestJournal.FILE_NAME, s.source());
        // 50 + 25 gaps of 20 ms between content events of the two successful requests
        double[] itl = s.sortedValues(CompareMetric.ITL);
        assertEquals(75, itl.length);
        assertEquals(20.0, itl[0], 1e-9);
        assertEquals(20.0, itl[74], 1e-9);
        PooledSample pooled = s.pooledValues(CompareMetric.ITL);
        assertEquals(2, pooled.requests());
        assertEquals(50, java.util.Arrays.stream(pooled.request()).filter(r -> r == 0).count());
        // the journal read directly, too
        assertEquals(75, RunSamples.read(run.resolve(RequestJournal.FILE_NAME), TokenCounting.DEFAULT)
                .sortedValues(CompareMetric.ITL).length);

        // a killed run leaves only the journal
        Path killed = Files.createDirectories(dir.resolve("killed"));
        try (RequestJournal journal = RequestJournal.create(killed)) {
            RECORDS.forEach(journal::append);
        }
        assertEquals(75, RunSamples.read(killed, TokenCounting.DEFAULT).sortedValues(CompareMetric.ITL).length);

        // a journal of other requests (a later run in the same folder) is not used
        try (RequestJournal journal = RequestJournal.create(run)) {
            journal.append(RECORDS.get(0));
        }
        assertEquals(RunSamples.CSV_SOURCE, RunSamples.read(run, TokenCounting.DEFAULT).source());
    }

    @Test
    void clearErrorsForWrongInput(@TempDir Path dir) throws IOException {
        IOException none = assertThrows(IOException.class, () -> RunSamples.read(dir, TokenCounting.DEFAULT));
        assertEquals("no *_requests.csv in " + dir + ": llmperf4j writes <model>_<in>_<out>_requests.csv beside the "
                + "summary files", none.getMessage());

        RequestCsvWriter.write(RECORDS, dir.resolve("a_requests.csv"));
        RequestCsvWriter.write(RECORDS, dir.resolve("b_requests.csv"));
        IOException several = assertThrows(IOException.class, () -> RunSamples.read(dir, TokenCounting.DEFAULT));
        assertEquals("2 files *_requests.csv in " + dir + " (a_requests.csv, b_requests.csv): pass the CSV file itself",
                several.getMessage());

        IOException missing = assertThrows(IOException.class, () -> RunSamples.read(dir.resolve("nope"),
                TokenCounting.DEFAULT));
        assertEquals("no such results directory or CSV file: " + dir.resolve("nope"), missing.getMessage());

        IOException columns = assertThrows(IOException.class, () -> RunSamples.readCsv(
                new StringReader("client_request_id,ttft_s\nr,0.1\n"), "x", TokenCounting.DEFAULT, "x.csv"));
        assertTrue(columns.getMessage().startsWith("x.csv is not a llmperf4j per-request CSV: missing columns "
                + "server_response_id, prompt_index, start_time_epoch_s, "), columns.getMessage());

        String bad = csv(RECORDS).replace("0.250000000", "quarter");
        IOException number = assertThrows(IOException.class, () -> RunSamples.readCsv(new StringReader(bad), "x",
                TokenCounting.DEFAULT, "x.csv"));
        assertEquals("x.csv data row 1, column ttft_s: 'quarter' is not a decimal number of seconds",
                number.getMessage());

        String kind = csv(RECORDS).replace("HTTP_STATUS", "TEAPOT");
        IOException unknownKind = assertThrows(IOException.class, () -> RunSamples.readCsv(new StringReader(kind), "x",
                TokenCounting.DEFAULT, "x.csv"));
        assertTrue(unknownKind.getMessage().startsWith("x.csv data row 3, column error_kind: 'TEAPOT' is not one of "),
                unknownKind.getMessage());
    }

    @Test
    void aKilledRunsJournalIsComparedWithItsCompleteRecordsAndACorruptOneIsNamed(@TempDir Path dir)
            throws IOException {
        Path killed = Files.createDirectory(dir.resolve("killed"));
        try (RequestJournal journal = RequestJournal.create(killed)) {
            for (int i = 0; i < 3; i++) {
                journal.append(request(i).evenEvents(100 * MS, 10 * MS, 4).e2e(150 * MS).usage(10, 4).build());
            }
        }
        Path file = killed.resolve(RequestJournal.FILE_NAME);
        String whole = Files.readString(file);
        Files.writeString(file, whole + whole.substring(0, 50)); // the fourth record cut off mid-line
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        RunSamples samples;
        try {
            samples = RunSamples.read(killed, TokenCounting.DEFAULT);
        } finally {
            System.setErr(err);
        }
        assertEquals(3, samples.recorded());
        String warning = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(warning.startsWith("llmperf4j: warning: " + file + " line 4 is incomplete ("), warning);

        List<String> lines = whole.lines().toList();
        Files.writeString(file, lines.get(0) + "\n" + lines.get(1).substring(0, 30) + "\n" + lines.get(2) + "\n");
        IOException e = assertThrows(IOException.class, () -> RunSamples.read(killed, TokenCounting.DEFAULT));
        assertTrue(e.getMessage().startsWith(file + " line 2: not a request record: "), e.getMessage());
        assertTrue(!e.getMessage().contains("Source:"), e.getMessage());
    }
}
