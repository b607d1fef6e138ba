package io.llmperf4j.report.csv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.OutputTokenPolicy;
import io.llmperf4j.model.RequestRecord;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventCsvWriterTest {

    @Test
    void oneRowPerContentEventWithNanosecondOffsets() throws IOException {
        RequestRecord counted = new RequestRecord(7, "req-7", "chatcmpl-7", 0, 200_000_001L, 240_000_000L,
                250_000_000L, 4, new long[] {200_000_001L, 220_000_000L, 240_000_000L}, "the of and to", 10, 20, 5,
                null, null, "length", null, new int[] {3, 6, 4}, new int[] {1, 2, 1}, RequestRecord.NEVER,
                RequestRecord.NEVER, null);
        RequestRecord failedUncounted = new RequestRecord(8, "req-8", null, 0, 5L, 5L, 9L, 1, new long[] {5L}, "x",
                10, 20, -1, null, null, null, new Failure(FailureKind.CONNECTION_CLOSED, -1, "reset"));
        RequestRecord noContent = new RequestRecord(9, "req-9", null, 0, -1, -1, 9L, 0, new long[0], "", 10, 20, -1,
                null, null, null, new Failure(FailureKind.HTTP_STATUS, 500, "boom"));
        StringBuilder out = new StringBuilder();
        EventCsvWriter.write(List.of(counted, failedUncounted, noContent), OutputTokenPolicy.DEFAULT, out);
        assertEquals(String.join("\r\n",
                "client_request_id,prompt_index,event_index,offset_s,chars,tokens,output_tokens",
                "req-7,7,0,0.200000001,3,1,1",
                "req-7,7,1,0.220000000,6,2,2",
                "req-7,7,2,0.240000000,4,1,1",
                "req-8,8,0,0.000000005,,,",
                ""), out.toString());
    }

    @Test
    void outputTokensFollowTheServersCountWhenItIsTheRequestsCount() throws IOException {
        // words like "w12 " that Llama-2 splits in 3, one server token each (usage 3): output_tokens 1 each
        RequestRecord oneEach = new RequestRecord(7, "req-7", "chatcmpl-7", 0, 100L, 300L, 310L, 5,
                new long[] {100L, 200L, 300L}, "w1 w2 w3 ", 10, 20, 10, 10, 3, "length", null, new int[] {3, 3, 3},
                new int[] {3, 3, 3}, RequestRecord.NEVER, RequestRecord.NEVER, null);
        StringBuilder out = new StringBuilder();
        EventCsvWriter.write(List.of(oneEach), OutputTokenPolicy.DEFAULT, out);
        assertEquals(String.join("\r\n",
                "client_request_id,prompt_index,event_index,offset_s,chars,tokens,output_tokens",
                "req-7,7,0,0.000000100,3,3,1",
                "req-7,7,1,0.000000200,3,3,1",
                "req-7,7,2,0.000000300,3,3,1",
                ""), out.toString());
        // the client count first (the server's not preferred): output_tokens = tokens
        StringBuilder client = new StringBuilder();
        EventCsvWriter.write(List.of(oneEach), new OutputTokenPolicy(1, false), client);
        assertTrue(client.toString().contains("req-7,7,2,0.000000300,3,3,3"), client::toString);
    }
}
