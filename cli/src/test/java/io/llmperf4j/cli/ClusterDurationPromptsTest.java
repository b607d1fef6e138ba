package io.llmperf4j.cli;

import io.llmperf4j.distributed.testing.LocalWorkers;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.csv.RequestCsvReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@code --duration} open loop on a cluster ({@code token-benchmark --cluster}, two load workers in this JVM) sends a
 * synthetic prompt of its own with every arrival, as one machine does: checked on the wire of a server that keeps
 * every body, and in the requests file, whose prompt indices are as distinct as the prompts; the same --seed sends
 * the same prompts again. (Before, its workers looped over the level's first draw, and stderr said so.)
 */
class ClusterDurationPromptsTest {
    private static String cluster;
    private static LocalWorkers workers;
    private static List<String> workerIds;

    @BeforeAll
    static void startWorkers() throws IOException {
        cluster = "test-" + UUID.randomUUID();
        workers = LocalWorkers.start(cluster, 2, "k");
        workerIds = workers.ids();
    }

    @AfterAll
    static void stopWorkers() {
        if (workers != null) workers.close();
    }

    /** 30 constant arrivals over 1.5 s, the first 10 (the default request count) a plain run's prompts. */
    private static CliRun run(BodyRecordingServer server, Path results) throws IOException {
        List<String> args = new ArrayList<>(List.of("token-benchmark", "--model", "m", "--mean-input-tokens", "60",
                "--stddev-input-tokens", "0", "--mean-output-tokens", "2", "--stddev-output-tokens", "0",
                "--request-rate", "20", "--arrival", "constant", "--duration", "1.5", "--seed", "5",
                "--no-client-warmup", "--results-dir", results.toString(), "--cluster", cluster, "--workers", "2",
                "--bind", "127.0.0.1:" + LoopbackPorts.next(), "--worker-wait", "60"));
        for (String w : workerIds) args.addAll(List.of("--member", w));
        return CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "k"),
                args.toArray(String[]::new));
    }

    @Test
    @Timeout(120)
    void everyArrivalOfADurationLevelOnTheWorkersSendsAPromptOfItsOwn(@TempDir Path tmp) throws IOException {
        List<String> first;
        List<String> again;
        CliRun run;
        try (BodyRecordingServer server = new BodyRecordingServer()) {
            run = run(server, tmp.resolve("a"));
            first = BodyRecordingServer.prompts(server.bodies());
            server.bodies.clear();
            CliRun second = run(server, tmp.resolve("b"));
            assertEquals(0, second.exitCode(), second::toString);
            again = BodyRecordingServer.prompts(server.bodies());
        }
        assertEquals(0, run.exitCode(), run::toString);
        assertEquals(30, first.size(), run::toString);
        assertEquals(first.size(), new HashSet<>(first).size(), "a prompt was sent twice: " + run);
        assertFalse(run.err().contains("on a cluster"), run::toString);
        assertFalse(run.err().contains("llmperf4j: --duration:"), run::toString);
        List<RequestRecord> records = RequestCsvReader.read(tmp.resolve("a").resolve("m_60_2_requests.csv"));
        assertEquals(30, records.size());
        assertEquals(Set.copyOf(workerIds), records.stream().map(RequestRecord::workerId)
                .collect(Collectors.toSet()), "both workers sent");
        assertEquals(30, records.stream().map(RequestRecord::promptIndex).distinct().count(),
                "one prompt index per prompt");
        assertEquals(Set.copyOf(first), Set.copyOf(again), "the same --seed sends the same prompts");
    }
}
