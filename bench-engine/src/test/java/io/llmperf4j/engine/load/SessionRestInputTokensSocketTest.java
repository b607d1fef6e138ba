package io.llmperf4j.engine.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.FaultServer;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A failed session's rest is sent with the session's system prompt and without history, so its first request's input
 * count includes the system prompt, as turn 0's does (found when rests were reworked: only turn 0's count had it, so
 * the rest's first request, and the later turns that add up from it, were short by the system prompt). Real sockets:
 * {@link FaultServer} answers "status-500" with a 500, "ok" with a stream, and keeps each body it received; the
 * counter is characters, so a request's count is the characters it sent: the system prompt, the separator, and every
 * later message's content (the runner's rule: the history counted as the sum of its messages).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SessionRestInputTokensSocketTest {
    private static final String SYSTEM = "You are a terse assistant.";

    /** Session s0 of 4 turns with a system prompt; turn 1 fails, so turns 2 and 3 are sent as the rest s0~t2. */
    private static PacedWorkload workload() {
        String[] prompts = {"ok", "status-500", "ok", "ok"};
        List<RequestSpec> specs = new ArrayList<>();
        for (int t = 0; t < prompts.length; t++) {
            RequestSpec turn = new RequestSpec(t, prompts[t], prompts[t].length(), 3,
                    new RequestInputs(SYSTEM, List.of(), List.of(), "s0", t));
            // as the workload counts them (SessionWorkloads.withSystemPrompts): turn 0 with the system prompt
            specs.add(t == 0 ? turn.withSystemPromptCounted(String::length) : turn);
        }
        return PacedWorkload.sessions(specs, PacedWorkload.ThinkTime.NONE);
    }

    /** The characters a chat body sends: its system prompt, the separator, and the other messages' contents. */
    private static int charactersSent(JsonNode body) {
        int n = 0;
        for (JsonNode message : body.get("messages")) {
            n += message.get("content").asText().length();
            if (message.get("role").asText().equals("system")) n += RequestInputs.SYSTEM_PROMPT_SEPARATOR.length();
        }
        return n;
    }

    @Test
    void aRestsRequestsCountTheSystemPromptTheySend() throws Exception {
        try (FaultServer server = FaultServer.start();
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(1).build())) {
            // one at a time: the server's bodies and the records come in the same order
            ClosedLoopResult result = new SessionRunner(client, String::length).runClosed(workload(),
                    new ClosedLoopSettings(1, OptionalInt.of(4), Duration.ofSeconds(30)), RecordListener.NONE,
                    () -> false);

            List<RequestRecord> records = result.records();
            assertEquals(4, records.size(), records::toString);
            List<FaultServer.Received> received = server.received();
            assertEquals(4, received.size());
            ObjectMapper json = new ObjectMapper();
            List<String> sessions = new ArrayList<>();
            List<Integer> counted = new ArrayList<>();
            List<Integer> sent = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                sessions.add(records.get(i).tags().sessionId() + "/" + records.get(i).tags().turn());
                counted.add(records.get(i).numberInputTokens());
                sent.add(charactersSent(json.readTree(received.get(i).bodyText())));
            }
            assertEquals(List.of("s0/0", "s0/1", "s0~t2/2", "s0~t2/3"), sessions);
            assertEquals(sent, counted, "each request's input count is what it sent");
            // the rest's first request: the system prompt, the separator and "ok", no history
            int systemAndOk = SYSTEM.length() + 2 + 2;
            assertEquals(systemAndOk, counted.get(2), "before, 2: the system prompt was left out");
            int reply = records.get(2).generatedText().length();
            assertEquals(systemAndOk + reply + 2, counted.get(3), "the next turn adds up from it");
        }
    }
}
