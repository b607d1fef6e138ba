package io.llmperf4j.report.csv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestTags;
import io.llmperf4j.report.metrics.TokenCounting;
import io.llmperf4j.report.summary.SessionsSummary;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestCsvWriterTest {

    private static final RequestRecord SUCCESS = new RequestRecord(3, "req-3", "chatcmpl-abc",
            1_703_136_124_000_042L, 250_000_000L, 2_000_000_000L, 2_100_000_001L, 101, new long[0], "text", 550, 150,
            151, 510, 150, "length", null);

    private static final RequestRecord FAILURE = new RequestRecord(4, "req-4", null, 1_703_136_125_500_000L, -1,
            -1, 50_000_000L, 0, new long[0], "", 600, 142, -1, null, null, null,
            new Failure(FailureKind.HTTP_STATUS, 500, "bad, \"very\" bad\nsecond line"));

    @Test
    void headerAndPlainDecimalRows() throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS, FAILURE), out);
        String[] lines = out.toString().split("\r\n", 3);
        assertEquals("client_request_id,server_response_id,prompt_index,start_time_epoch_s,ttft_s,ttfrt_s,"
                + "end_to_end_latency_s,connect_s,number_input_tokens,max_tokens,output_tokens_client,"
                + "output_tokens_server,prompt_tokens_server,finish_reason,error_kind,error_code,error_msg,"
                + "connection,connection_wait_s,tls_s,request_written_s,response_headers_s,last_content_s,session_id,"
                + "turn,cached_tokens", lines[0]);
        assertEquals("req-3,chatcmpl-abc,3,1703136124.000042,0.250000000,,2.100000001,,550,150,151,150,510,length,,,"
                + ",,,,,,2.000000000,,,", lines[1]);
        // RFC 4180: the message with a comma and quotes is quoted, quotes doubled; its line break is escaped, as the
        // console escapes it, so that every row is one line (QA: a server's body broke line tools)
        assertEquals("req-4,,4,1703136125.500000,,,0.050000000,,600,142,,,,,HTTP_STATUS,500,"
                + "\"bad, \"\"very\"\" bad\\nsecond line\",,,,,,,,,\r\n", lines[2]);
    }

    @Test
    void rowsParseBackWithCommonsCsv() throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS, FAILURE), out);
        List<CSVRecord> records = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get()
                .parse(new StringReader(out.toString())).getRecords();
        assertEquals(2, records.size());
        assertEquals("bad, \"very\" bad\\nsecond line", records.get(1).get("error_msg"));
        assertEquals("", records.get(1).get("output_tokens_client"));
        assertEquals("", records.get(1).get("ttft_s"));
        assertEquals("0.050000000", records.get(1).get("end_to_end_latency_s"));
    }

    @Test
    void aDistributedRunHasAWorkerColumnThatReadsBack(@TempDir Path dir) throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS.withWorkerId("10.0.0.2:5701"), FAILURE.withWorkerId("10.0.0.3:5701")),
                out);
        String[] lines = out.toString().split("\r\n", 3);
        assertTrue(lines[0].endsWith(",error_msg,connection,connection_wait_s,tls_s,request_written_s,"
                + "response_headers_s,last_content_s,session_id,turn,cached_tokens,worker"), lines[0]);
        assertTrue(lines[1].endsWith(",length,,,,,,,,,2.000000000,,,,10.0.0.2:5701"), lines[1]);
        Path file = dir.resolve("requests.csv");
        Files.writeString(file, out);
        List<RequestRecord> back = RequestCsvReader.read(file);
        assertEquals("10.0.0.2:5701", back.get(0).workerId());
        assertEquals("10.0.0.3:5701", back.get(1).workerId());
    }

    @Test
    void anOpenLoopHasTheSendLagAfterTheWorkerAndItReadsBackAsTheSameRecords(@TempDir Path dir) throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS.withWorkerId("w1"), FAILURE.withWorkerId("w2")),
                Map.of("req-3", 1_250_000L), out); // req-4's lag unknown: an empty field
        String[] lines = out.toString().split("\r\n", 3);
        assertTrue(lines[0].endsWith(",cached_tokens,worker,send_lag_s"), lines[0]);
        assertTrue(lines[1].endsWith(",2.000000000,,,,w1,0.001250000"), lines[1]);
        assertTrue(lines[2].endsWith(",w2,\r\n"), lines[2]);
        Path file = dir.resolve("requests.csv");
        Files.writeString(file, out);
        List<RequestRecord> back = RequestCsvReader.read(file);
        assertEquals(2, back.size());
        assertEquals(SUCCESS.ttftNanos(), back.get(0).ttftNanos());
        assertEquals("w2", back.get(1).workerId());
    }

    /** A scheduled run's requests sent here: the client delay is the last column, the rows read back as before. */
    @Test
    void theClientDelayIsTheLastColumnAndTheRowsReadBack(@TempDir Path dir) throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS, FAILURE), Map.of("req-3", 1_250_000L, "req-4", 0L),
                Map.of("req-3", 75_000L), out); // req-4's delay unknown: an empty field
        String[] lines = out.toString().split("\r\n", 3);
        assertTrue(lines[0].endsWith(",cached_tokens,send_lag_s,client_delay_s"), lines[0]);
        assertTrue(lines[1].endsWith(",0.001250000,0.000075000"), lines[1]);
        assertTrue(lines[2].endsWith(",0.000000000,\r\n"), lines[2]);
        Path file = dir.resolve("requests.csv");
        Files.writeString(file, out);
        List<RequestRecord> back = RequestCsvReader.read(file);
        assertEquals(2, back.size());
        assertEquals(SUCCESS.ttftNanos(), back.get(0).ttftNanos());

        StringBuilder without = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS), Map.of("req-3", 1_250_000L), Map.of(), without);
        assertFalse(without.toString().contains("client_delay"), without::toString);
    }

    @Test
    void withoutLagsThereIsNoSendLagColumn() throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS), Map.of(), out);
        assertFalse(out.toString().contains("send_lag"), out::toString);
    }

    @Test
    void aSingleMachineRunHasNoWorkerColumn() throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS), out);
        assertFalse(out.toString().contains("worker"), out::toString);
    }

    @Test
    void connectTimeIsWrittenWhenANewConnectionWasOpenedAndReadBack() throws IOException {
        RequestRecord connected = new RequestRecord(1, "req-1", null, 5L, 2_000_000L, 3_000_000L, 4_000_000L, 1,
                new long[0], "", 1, 1, 1, null, null, null, null, null, null, RequestRecord.NEVER, 1_250_000L, null);
        assertEquals("0.001250000", RequestCsvWriter.row(connected).get(RequestCsvWriter.HEADER.indexOf("connect_s")));
        assertEquals("", RequestCsvWriter.row(SUCCESS).get(RequestCsvWriter.HEADER.indexOf("connect_s")));
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(connected, SUCCESS), out);
        List<RequestRecord> back = RequestCsvReader.read(new StringReader(out.toString()), "test.csv");
        assertEquals(1_250_000L, back.get(0).connectNanos());
        assertEquals(RequestRecord.NEVER, back.get(1).connectNanos());
    }

    @Test
    void aFileWithoutTheConnectColumnStillReads() throws IOException {
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS), out);
        String withoutConnect = out.toString().replace(",connect_s,", ",").replace("2.100000001,,", "2.100000001,");
        List<RequestRecord> back = RequestCsvReader.read(new StringReader(withoutConnect), "old.csv");
        assertEquals(RequestRecord.NEVER, back.get(0).connectNanos());
        assertEquals(150, back.get(0).usageCompletionTokens());
    }

    @Test
    void tinyDurationsStayOutOfExponentForm() {
        RequestRecord fast = new RequestRecord(0, "r", null, 5L, 1L, 1L, 7L, 1, new long[0], "", 1, 1, 1, null,
                null, null, null);
        List<String> row = RequestCsvWriter.row(fast);
        assertEquals("0.000005", row.get(3));
        assertEquals("0.000000001", row.get(4));
        assertEquals("", row.get(5), "no reasoning");
        assertEquals("0.000000007", row.get(6));
    }

    @Test
    void reasoningTimeIsWrittenAndReadBack() throws IOException {
        RequestRecord reasoning = new RequestRecord(1, "req-r", "chatcmpl-r", 1_703_136_124_000_000L, 300_000_000L,
                300_000_000L, 400_000_000L, 3, new long[] {300_000_000L}, "Yes", 10, 20, 2, null, null, "stop", null,
                new int[] {3}, new int[] {1}, 120_000_001L, RequestRecord.NEVER, null);
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(reasoning, FAILURE), out);
        assertEquals("0.120000001", RequestCsvWriter.row(reasoning).get(5));
        List<RequestRecord> back = RequestCsvReader.read(new StringReader(out.toString()), "mem.csv");
        assertEquals(120_000_001L, back.get(0).firstReasoningNanos());
        assertEquals(RequestRecord.NEVER, back.get(1).firstReasoningNanos());
    }

    @Test
    void filesFromBeforeTheReasoningColumnStillRead() throws IOException {
        String old = "client_request_id,server_response_id,prompt_index,start_time_epoch_s,ttft_s,"
                + "end_to_end_latency_s,number_input_tokens,max_tokens,output_tokens_client,output_tokens_server,"
                + "prompt_tokens_server,finish_reason,error_kind,error_code,error_msg\r\n"
                + "req-3,chatcmpl-abc,3,1703136124.000042,0.250000000,2.100000001,550,150,151,150,510,length,,,\r\n";
        RequestRecord r = RequestCsvReader.read(new StringReader(old), "old.csv").get(0);
        assertEquals(250_000_000L, r.ttftNanos());
        assertEquals(2_100_000_001L, r.e2eNanos());
        assertEquals(RequestRecord.NEVER, r.firstReasoningNanos());
    }

    @Test
    void timingPhaseColumnsAreSecondsAndReadBack(@TempDir Path dir) throws IOException {
        // a new connection: connect 3 ms (TLS 2 ms inside), ready at 3.5 ms, written 3.6 ms, headers 200 ms
        RequestRecord fresh = new RequestRecord(5, "req-5", null, 1_703_136_124_000_000L, 250_000_000L,
                900_000_000L, 1_000_000_000L, 3, new long[] {250_000_000L, 900_000_000L}, "ab", 10, 5, 3, null, null,
                "stop", null, null, null, RequestRecord.NEVER, 3_000_000L, null)
                .withPhases(new RequestPhases(3_500_000L, 2_000_000L, 3_600_000L, 200_000_000L));
        RequestRecord reused = SUCCESS.withPhases(new RequestPhases(1_000L, -1, 51_000L, 150_000_000L));
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(fresh, reused, FAILURE), out);
        List<CSVRecord> rows = CSVFormat.RFC4180.builder().setHeader().setSkipHeaderRecord(true).get()
                .parse(new StringReader(out.toString())).getRecords();
        assertEquals("new", rows.get(0).get("connection"));
        assertEquals("0.003000000", rows.get(0).get("connect_s"));
        assertEquals("0.000500000", rows.get(0).get("connection_wait_s"));
        assertEquals("0.002000000", rows.get(0).get("tls_s"));
        assertEquals("0.003600000", rows.get(0).get("request_written_s"));
        assertEquals("0.200000000", rows.get(0).get("response_headers_s"));
        assertEquals("0.900000000", rows.get(0).get("last_content_s"));
        assertEquals("reused", rows.get(1).get("connection"));
        assertEquals("0.000001000", rows.get(1).get("connection_wait_s"));
        assertEquals("", rows.get(1).get("tls_s"));
        assertEquals("", rows.get(2).get("connection"));
        assertEquals("", rows.get(2).get("connection_wait_s"));

        Path file = dir.resolve("requests.csv");
        Files.writeString(file, out);
        List<RequestRecord> back = RequestCsvReader.read(file);
        assertEquals(fresh.phases(), back.get(0).phases());
        assertEquals(3_000_000L, back.get(0).connectNanos());
        assertEquals(900_000_000L, back.get(0).lastContentNanos());
        assertEquals(reused.phases(), back.get(1).phases());
        assertEquals(RequestPhases.UNKNOWN, back.get(2).phases());
    }

    @Test
    void aFileWithoutThePhaseColumnsReadsWithUnknownPhases(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("old_requests.csv");
        Files.writeString(file, "client_request_id,server_response_id,prompt_index,start_time_epoch_s,ttft_s,"
                + "end_to_end_latency_s,number_input_tokens,max_tokens,output_tokens_client,output_tokens_server,"
                + "prompt_tokens_server,finish_reason,error_kind,error_code,error_msg\r\n"
                + "req-1,,1,1703136124.000000,0.250000000,1.000000000,10,5,6,5,10,stop,,,\r\n");
        RequestRecord back = RequestCsvReader.read(file).get(0);
        assertEquals(RequestPhases.UNKNOWN, back.phases());
        assertEquals(RequestRecord.NEVER, back.lastContentNanos());
        assertEquals(RequestRecord.NEVER, back.connectNanos());
        assertEquals(250_000_000L, back.ttftNanos());
    }
    /** A session's turn: {@code id}, turn {@code turn} of a workload session of 3 turns, a rest of {@code restOf}. */
    private static RequestRecord turn(String requestId, String id, int turn, String restOf) {
        return new RequestRecord(3, requestId, "chatcmpl-" + requestId, 1_703_136_124_000_042L, 250_000_000L,
                2_000_000_000L, 2_100_000_001L, 101, new long[0], "text", 550, 150, 151, 510, 150, "length", null)
                .withTags(new RequestTags(id, turn, null, 0, 0, 0).withWorkloadSession(3, restOf));
    }

    /**
     * A failed session's rest ({@code s0~t2}) and its session's turns: {@code session_turns} and {@code rest_of} at
     * the end, read back so the sessions summary counts the rest in its session, as from {@code requests.jsonl}.
     * Before, the CSV lost both and the rest read as a session of its own, of unknown turns.
     */
    @Test
    void aSessionsTurnsAndAFailedSessionsRestReadBack(@TempDir Path dir) throws IOException {
        RequestRecord failed = FAILURE.withTags(new RequestTags("s0", 1, null, 0, 0, 0).withWorkloadSession(3, null));
        List<RequestRecord> records = List.of(turn("a", "s0", 0, null), failed, turn("c", "s1", 0, null),
                turn("d", "s0~t2", 2, "s0"), turn("e", "s1", 1, null), turn("f", "s1", 2, null));
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(records, Map.of("a", 0L), out);
        String[] lines = out.toString().split("\r\n");
        assertTrue(lines[0].endsWith(",cached_tokens,send_lag_s,session_turns,rest_of"), lines[0]);
        assertTrue(lines[1].endsWith(",s0,0,,0.000000000,3,"), lines[1]);
        assertTrue(lines[4].endsWith(",s0~t2,2,,,3,s0"), lines[4]);
        Path file = dir.resolve("requests.csv");
        Files.writeString(file, out);
        List<RequestRecord> back = RequestCsvReader.read(file);
        assertEquals(records.stream().map(RequestRecord::tags).toList(),
                back.stream().map(RequestRecord::tags).toList());
        SessionsSummary fromCsv = SessionsSummary.of(back, TokenCounting.DEFAULT);
        assertEquals(SessionsSummary.of(records, TokenCounting.DEFAULT), fromCsv);
        assertEquals(2, fromCsv.sessions());
        assertEquals(1, fromCsv.sessionsCompleted());
        assertEquals(1, fromCsv.sessionsCut());
    }

    /**
     * A stream's ignored lines, what STREAM_LINES_IGNORED counts and quotes, come last and read back; a run without
     * them has none of these columns, nor the sessions' without sessions.
     */
    @Test
    void ignoredStreamLinesReadBackAndAreAbsentWithoutAny(@TempDir Path dir) throws IOException {
        RequestRecord ignored = SUCCESS.withTags(RequestTags.NONE.withIgnoredStreamLines(2, "hello, \"world\""));
        StringBuilder out = new StringBuilder();
        RequestCsvWriter.write(List.of(ignored, FAILURE), out);
        String[] lines = out.toString().split("\r\n");
        assertTrue(lines[0].endsWith(",cached_tokens,ignored_stream_lines,ignored_stream_line"), lines[0]);
        assertTrue(lines[1].endsWith(",2,\"hello, \"\"world\"\"\""), lines[1]);
        assertTrue(lines[2].endsWith(",,"), lines[2]);
        Path file = dir.resolve("requests.csv");
        Files.writeString(file, out);
        List<RequestRecord> back = RequestCsvReader.read(file);
        assertEquals(ignored.tags(), back.get(0).tags());
        assertEquals(RequestTags.NONE, back.get(1).tags());
        StringBuilder plain = new StringBuilder();
        RequestCsvWriter.write(List.of(SUCCESS, FAILURE), plain);
        for (String column : List.of("session_turns", "rest_of", "ignored_stream_line")) {
            assertFalse(plain.toString().contains(column), plain::toString);
        }
    }
}
