package io.llmperf4j.report.jsonl;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestPhases;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestTags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RequestJournalTest {
    private static final RequestRecord OK = new RequestRecord(3, "req-3", "chatcmpl-9", 1_700_000_000_123_456L,
            50_000_000L, 90_000_000L, 95_000_000L, 6, new long[] {50_000_000L, 70_000_000L, 90_000_000L},
            "the of and", 550, 3, 4, 540, 3, "length", null);
    private static final RequestRecord FAILED = new RequestRecord(4, "req-4", null, 1_700_000_000_223_456L,
            -1, -1, 12_000_000L, 0, new long[0], "", 560, 10, 1, null, null, null,
            new Failure(FailureKind.HTTP_STATUS, 500, "internal \"error\"\nline two"));

    @Test
    void everyAppendedRecordIsOnDiskAtOnceAndReadsBackEqual(@TempDir Path dir) throws IOException {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(OK);
            // flushed per record: a reader sees it before the journal is closed
            assertEquals(1, Files.readAllLines(journal.file()).size());
            journal.append(FAILED);
        }
        List<RequestRecord> back = RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME));
        assertEquals(2, back.size());
        assertEquals(OK.clientRequestId(), back.get(0).clientRequestId());
        assertArrayEquals(OK.contentEventNanos(), back.get(0).contentEventNanos());
        assertEquals(OK.usageCompletionTokens(), back.get(0).usageCompletionTokens());
        assertNull(back.get(0).failure());
        assertEquals(FAILED.failure(), back.get(1).failure());
        assertNull(back.get(1).usagePromptTokens());
        String text = Files.readString(dir.resolve(RequestJournal.FILE_NAME), StandardCharsets.UTF_8);
        assertTrue(text.contains("\"ttft_nanos\":50000000"), text);
        assertEquals(2, text.lines().count());
    }

    @Test
    void theWorkerIsWrittenOnlyWhenSet(@TempDir Path dir) throws IOException {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(OK);
            journal.append(FAILED.withWorkerId("10.0.0.2:5701"));
        }
        List<String> lines = Files.readAllLines(dir.resolve(RequestJournal.FILE_NAME), StandardCharsets.UTF_8);
        assertFalse(lines.get(0).contains("worker"), lines.get(0));
        assertTrue(lines.get(1).contains("\"worker_id\":\"10.0.0.2:5701\""), lines.get(1));
        assertEquals("10.0.0.2:5701", RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME)).get(1).workerId());
    }

    @Test
    void aRestsSessionAndIgnoredStreamLinesAreWrittenOnlyWhenSetAndReadBack(@TempDir Path dir) throws IOException {
        RequestTags set = RequestTags.NONE.withWorkloadSession(3, "s0").withIgnoredStreamLines(2, "hello");
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(OK);
            journal.append(FAILED.withTags(set));
        }
        List<String> lines = Files.readAllLines(dir.resolve(RequestJournal.FILE_NAME), StandardCharsets.UTF_8);
        for (String unset : List.of("rest_of", "ignored_stream_lines", "ignored_stream_line")) {
            assertFalse(lines.get(0).contains("\"" + unset + "\""), unset + " in " + lines.get(0));
        }
        assertTrue(lines.get(1).contains("\"rest_of\":\"s0\",\"ignored_stream_lines\":2,"
                + "\"ignored_stream_line\":\"hello\""), lines.get(1));
        List<RequestRecord> back = RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME));
        assertEquals(RequestTags.NONE, back.get(0).tags()); // absent reads as unset
        assertEquals(set, back.get(1).tags());
    }

    @Test
    void theSendLagIsWrittenOnlyForOpenLoopRecordsAndReadsBackAsTheSameRecord(@TempDir Path dir) throws IOException {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(OK, 1_234_567L);
            journal.append(FAILED);
            journal.append(OK.withWorkerId("w1"), 0L);
        }
        List<String> lines = Files.readAllLines(dir.resolve(RequestJournal.FILE_NAME), StandardCharsets.UTF_8);
        assertTrue(lines.get(0).endsWith(",\"send_lag_nanos\":1234567}"), lines.get(0));
        assertFalse(lines.get(1).contains("send_lag"), lines.get(1));
        assertTrue(lines.get(2).contains("\"worker_id\":\"w1\"") && lines.get(2).contains("\"send_lag_nanos\":0"),
                lines.get(2));
        List<RequestRecord> back = RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME));
        assertEquals(3, back.size());
        assertEquals(OK.clientRequestId(), back.get(0).clientRequestId());
        assertEquals(OK.ttftNanos(), back.get(0).ttftNanos());
        assertEquals("w1", back.get(2).workerId());
    }

    /** A request this machine sent in a schedule: its client delay after the send lag, and read back as before. */
    @Test
    void theClientDelayFollowsTheSendLagAndReadsBackAsTheSameRecord(@TempDir Path dir) throws IOException {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(OK, 1_234_567L, 89_000L);
            journal.append(OK.withWorkerId("w1"), 5L);
        }
        List<String> lines = Files.readAllLines(dir.resolve(RequestJournal.FILE_NAME), StandardCharsets.UTF_8);
        assertTrue(lines.get(0).endsWith(",\"send_lag_nanos\":1234567,\"client_delay_nanos\":89000}"), lines.get(0));
        assertFalse(lines.get(1).contains("client_delay"), lines.get(1));
        List<RequestRecord> back = RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME));
        assertEquals(2, back.size());
        assertEquals(OK.clientRequestId(), back.get(0).clientRequestId());
        assertEquals(OK.e2eNanos(), back.get(0).e2eNanos());
        assertEquals("w1", back.get(1).workerId());
    }

    @Test
    void aNewJournalReplacesAnOldOne(@TempDir Path dir) throws IOException {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(OK);
        }
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(FAILED);
        }
        assertEquals(1, RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME)).size());
    }

    @Test
    void linesWrittenBeforeTheReasoningAndConnectTimesReadAsNever(@TempDir Path dir) throws IOException {
        Path file = dir.resolve(RequestJournal.FILE_NAME);
        Files.writeString(file, "{\"prompt_index\":1,\"client_request_id\":\"a\",\"ttft_nanos\":5,"
                + "\"content_event_nanos\":[5]}\n");
        RequestRecord r = RequestJournal.read(file).get(0);
        assertEquals(RequestRecord.NEVER, r.firstReasoningNanos());
        assertEquals(RequestRecord.NEVER, r.connectNanos());
        assertEquals(5, r.ttftNanos());
        assertEquals(0, r.contentEventChars().length);
    }

    @Test
    void newFieldsRoundTrip(@TempDir Path dir) throws IOException {
        RequestRecord reasoned = new RequestRecord(1, "r", "c", 0, 50, 90, 95, 4, new long[] {50, 90}, "a b", 10,
                5, 3, null, null, "stop", null, new int[] {1, 2}, new int[] {1, 1}, 20, RequestRecord.NEVER, "w1");
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(reasoned);
        }
        RequestRecord back = RequestJournal.read(dir.resolve(RequestJournal.FILE_NAME)).get(0);
        assertEquals(20, back.firstReasoningNanos());
        assertArrayEquals(new int[] {1, 2}, back.contentEventChars());
        assertArrayEquals(new int[] {1, 1}, back.contentEventTokens());
    }

    @Test
    void aMalformedLineIsNamed(@TempDir Path dir) throws IOException {
        Path file = dir.resolve(RequestJournal.FILE_NAME);
        Files.writeString(file, "{\"prompt_index\":1,\"client_request_id\":\"a\"}\n{oops\n");
        IOException e = assertThrows(IOException.class, () -> RequestJournal.read(file));
        assertTrue(e.getMessage().contains("line 2"), e.getMessage());
    }

    @Test
    void timingPhasesRoundTripAndOldLinesReadAsUnknown(@TempDir Path dir) throws IOException {
        RequestRecord timed = OK.withPhases(new RequestPhases(2_000L, 500L, 60_000L, 40_000_000L));
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(timed);
        }
        Path file = dir.resolve(RequestJournal.FILE_NAME);
        String line = Files.readString(file, StandardCharsets.UTF_8);
        assertTrue(line.contains("\"phases\":{\"connection_ready_nanos\":2000,\"tls_nanos\":500,"
                + "\"request_written_nanos\":60000,\"response_headers_nanos\":40000000}"), line);
        assertEquals(timed.phases(), RequestJournal.read(file).get(0).phases());

        Files.writeString(file, "{\"prompt_index\":1,\"client_request_id\":\"a\",\"ttft_nanos\":5}\n");
        assertEquals(RequestPhases.UNKNOWN, RequestJournal.read(file).get(0).phases());
    }

    @Test
    void aHalfWrittenLastLineKeepsEveryCompleteRecordAndWarnsWithTheLine(@TempDir Path dir) throws IOException {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(OK);
            journal.append(FAILED);
        }
        Path file = dir.resolve(RequestJournal.FILE_NAME);
        // a run killed while writing its third record: part of the line, no newline
        String third = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).lines().findFirst().orElseThrow();
        Files.writeString(file, third.substring(0, third.length() / 2), StandardOpenOption.APPEND);

        List<String> warnings = new ArrayList<>();
        List<RequestRecord> back = RequestJournal.read(file, warnings::add);
        assertEquals(List.of("req-3", "req-4"), back.stream().map(RequestRecord::clientRequestId).toList());
        assertEquals(1, warnings.size());
        String warning = warnings.get(0);
        assertTrue(warning.startsWith(file + " line 3 is incomplete ("), warning);
        assertTrue(warning.endsWith("the run was probably stopped while writing it; kept the 2 complete records "
                + "before it"), warning);
        assertFalse(warning.contains("Source:") || warning.contains("REDACTED"), warning);
    }

    @Test
    void aCorruptLineInTheMiddleIsAnErrorNamingFileLineAndReasonWithoutJacksonInternals(@TempDir Path dir)
            throws IOException {
        try (RequestJournal journal = RequestJournal.create(dir)) {
            journal.append(OK);
            journal.append(FAILED);
            journal.append(OK);
        }
        Path file = dir.resolve(RequestJournal.FILE_NAME);
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        // two runs writing into one journal: the second line is cut off by the next record
        Files.write(file, List.of(lines.get(0), lines.get(1).substring(0, 40), lines.get(2)), StandardCharsets.UTF_8);

        List<String> warnings = new ArrayList<>();
        IOException e = assertThrows(IOException.class, () -> RequestJournal.read(file, warnings::add));
        String message = e.getMessage();
        assertTrue(message.startsWith(file + " line 2: not a request record: Unexpected end-of-input"), message);
        assertFalse(message.contains("Source:") || message.contains("REDACTED") || message.contains("\n"), message);
        assertEquals(List.of(), warnings);

        // a complete last line that is not a record is not a half-written one: an error too
        Files.writeString(file, lines.get(0) + "\n[1, 2]\n", StandardCharsets.UTF_8);
        IOException last = assertThrows(IOException.class, () -> RequestJournal.read(file, warnings::add));
        assertEquals(file + " line 2: not a request record: not a JSON object", last.getMessage());
    }
}
