package io.llmperf4j.run;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RunRequest.builder: llmperf's token benchmark by default, each setter one change; it runs as built. */
class RunRequestBuilderTest {

    @Test
    void theDefaultsAreLlmperfsTokenBenchmark() {
        RunRequest request = RunRequest.builder("http://127.0.0.1:9/v1", "EMPTY", "m").build();
        CommonSettings common = request.common();
        EndpointTarget.Remote target = (EndpointTarget.Remote) common.target();
        assertEquals("http://127.0.0.1:9/v1", target.apiBase());
        assertEquals("EMPTY", target.apiKey());
        assertEquals("m", common.model());
        assertEquals(10, common.numConcurrentRequests());
        assertEquals(10, common.maxNumCompletedRequests());
        assertEquals(90, common.timeoutSeconds());
        assertEquals("openai", common.llmApi());
        assertNull(common.resultsDir());
        assertEquals(Duration.ofSeconds(180), common.idleTimeout());
        assertEquals(Duration.ofSeconds(30), common.connectTimeout());
        assertEquals(WorkloadSpec.llmperfDefaults(), request.workload());
        assertTrue(request.includeUsage() && request.stream() && request.clientWarmup());
        assertEquals(LoadPlan.plain("m", 10, 10, Duration.ofSeconds(90)), request.load());
        assertNull(request.cluster());
    }

    @Test
    void aBuiltClosedLoopRunsAgainstAServerAndWritesItsFiles(@TempDir Path dir) throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1)).build())) {
            RunRequest request = RunRequest.builder(server.baseUrl(), "EMPTY", "sim")
                    .closedLoop(2, 4)
                    .clientWarmup(false)
                    .resultsDir(dir)
                    .build();
            PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
            assertEquals(RunStatus.COMPLETED, new Runner(quiet, quiet).run(request));
        }
        assertEquals(4, Files.readAllLines(dir.resolve("requests.jsonl")).size());
        assertTrue(Files.isRegularFile(dir.resolve("sim_550_150_summary.json")), () -> String.join(", ", dir.toFile().list()));
    }
}
