package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.apache.commons.csv.CSVRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The traces QA's run: {@code --dataset sharegpt:sg.json --turns all --num-concurrent-requests 2} with two
 * conversations ("c1", "c2", two turns each) and the default 10 requests, against the embedded simulator on
 * 127.0.0.1. Its sessions were {@code c0-0, c0-1, c1-0, c1-1}, where "c1-0" was pass 1 of conversation 0, and it
 * played the conversations again without a word (the second pass's first turns served whole from the cache).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShareGptSessionsReplayedTest {

    private static String conversation(String id, String word) {
        return "{\"id\":\"" + id + "\",\"conversations\":[{\"from\":\"human\",\"value\":\"Tell me about " + word
                + ", please, in a few words\"},{\"from\":\"gpt\",\"value\":\"Here is a short answer about " + word
                + ".\"},{\"from\":\"human\",\"value\":\"And more about " + word + "?\"},"
                + "{\"from\":\"gpt\",\"value\":\"Some more words about " + word + ".\"}]}";
    }

    private static CliRun run(Path dir, String... extra) throws Exception {
        Files.createDirectories(dir);
        Path data = Files.writeString(dir.resolve("sg.json"), "[" + conversation("c1", "cats") + ","
                + conversation("c2", "dogs") + "]");
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--dataset", "sharegpt:" + data,
                "--turns", "all", "--num-concurrent-requests", "2", "--no-client-warmup", "--no-server-metrics",
                "--results-dir", dir.resolve("out").toString()));
        args.addAll(List.of(extra));
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ZERO).build())) {
            return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                    args.toArray(String[]::new));
        }
    }

    @Test
    void sessionIdsAreTheConversationsThenTheirPasses(@TempDir Path dir) throws Exception {
        CliRun run = run(dir);
        assertEquals(0, run.exitCode(), run::toString);
        Set<String> ids = new LinkedHashSet<>();
        for (CSVRecord r : RunFolder.csv(dir.resolve("out"))) ids.add(r.get("session_id"));
        assertEquals(Set.of("c1", "c2", "c1~1", "c2~1", "c1~2"), ids, ids::toString);
        assertTrue(List.copyOf(ids).indexOf("c1~1") > List.copyOf(ids).indexOf("c1"), ids::toString);
    }

    @Test
    void stderrSaysTheConversationsAreReplayedAndHowOften(@TempDir Path dir) throws Exception {
        CliRun run = run(dir);
        assertEquals(0, run.exitCode(), run::toString);
        // the line names the file's first conversation's replay (ids follow the file: c1, c2), whichever ended first
        String first = "c1";
        assertTrue(run.err().contains("llmperf4j: --dataset sharegpt:" + dir.resolve("sg.json") + ": its 2 "
                + "conversations that fit (4 user turns) are replayed for the 10 requests: played 3 times, the last "
                + "pass cut short, each pass after the first as new sessions (" + first + "~1, ...); from the second "
                + "pass on, the server's prefix cache can serve every prompt again and TTFT times a cached prefill (a "
                + "larger dataset, or --max-num-completed-requests 4 or fewer, plays each once)\n"), run::toString);
        CliRun once = run(dir.resolve("once"), "--max-num-completed-requests", "4");
        assertEquals(0, once.exitCode(), once::toString);
        assertFalse(once.err().contains("replayed"), once::toString);
    }
}
