package io.llmperf4j.engine.overhead;

import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.load.Arrival;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopRunner;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.OpenLoopResult;
import io.llmperf4j.engine.load.OpenLoopRunner;
import io.llmperf4j.engine.load.OpenLoopSettings;
import io.llmperf4j.model.BenchmarkSettings;
import io.llmperf4j.model.ClientOverhead;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.netty.util.concurrent.EventExecutorGroup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Connect time per request and the client's self-measurement, over a loopback socket to the simulator. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectTimeAndClientOverheadTest {

    private static SimulatedServer server;

    @BeforeAll
    static void startServer() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(20))
                .interTokenDelay(Duration.ofMillis(2))
                .build());
    }

    @AfterAll
    static void stopServer() {
        if (server != null) server.close();
    }

    @Test
    void onlyRequestsThatOpenedAConnectionCarryAConnectTimeAndEveryRunMeasuresTheClient() {
        List<RequestSpec> specs = IntStream.range(0, 8).mapToObj(i -> new RequestSpec(i, "prompt " + i, 4, 10))
                .toList();
        ClientConfig config = ClientConfig.builder(EndpointUrls.chatCompletions(server.baseUrl()), "m")
                .maxConnections(2).connectionMode(ConnectionMode.ON_DEMAND).build(); // connects inside the run
        try (NettyLlmClient client = new NettyLlmClient(config)) {
            ClosedLoopResult result = new ClosedLoopRunner(client, text -> -1)
                    .run(specs, new ClosedLoopSettings(2, Duration.ofSeconds(30)).withMaxCompleted(8));

            assertEquals(8, result.records().size());
            assertTrue(result.records().stream().allMatch(RequestRecord::succeeded), result.records().toString());
            List<RequestRecord> connected = result.records().stream().filter(r -> r.connectNanos() >= 0).toList();
            assertEquals(client.connectionsOpened(), connected.size());
            assertEquals(2, connected.size(), "two connections, kept alive for the other six requests");
            for (RequestRecord r : connected) {
                assertTrue(r.connectNanos() > 0 && r.connectNanos() < r.ttftNanos(), r.toString());
            }
            assertTrue(result.records().stream().filter(r -> r.connectNanos() < 0)
                    .allMatch(r -> r.connectNanos() == RequestRecord.NEVER));

            ClientOverhead overhead = result.clientOverhead();
            assertNotNull(overhead);
            assertEquals(config.ioThreads(), overhead.ioThreads());
            assertEquals(Runtime.getRuntime().availableProcessors(), overhead.availableProcessors());
            assertTrue(overhead.wallNanos() > 0);
            assertTrue(overhead.lagSamples() > 0, "the run lasts several probe periods: " + overhead);
            assertTrue(overhead.lagP50Nanos() >= 0 && overhead.lagP99Nanos() >= overhead.lagP50Nanos()
                    && overhead.lagMaxNanos() >= overhead.lagP99Nanos(), overhead.toString());
            assertTrue(overhead.processCpuShare() > 0 && overhead.processCpuShare() <= 1.5, overhead.toString());
            assertTrue(overhead.ioBusyShareMax() >= 0 && overhead.ioBusyShareMax() >= overhead.ioBusyShareMean(),
                    overhead.toString());
            assertTrue(overhead.gcCount() >= 0 && overhead.gcPauseNanos() >= 0);
            BenchmarkSettings settings = BenchmarkSettings.builder()
                    .model("m")
                    .meanInputTokens(4)
                    .stddevInputTokens(0)
                    .meanOutputTokens(10)
                    .stddevOutputTokens(0)
                    .numConcurrentRequests(2)
                    .timeoutSeconds(30)
                    .maxNumCompletedRequests(8)
                    .additionalSamplingParams(Map.of())
                    .llmApi("openai")
                    .metadata(Map.of())
                    .endpoint(server.baseUrl())
                    .tokenizer("none")
                    .promptMode("exact")
                    .seed(0)
                    .build();
            assertEquals(overhead, result.toBenchmarkRun(settings).clientOverhead(), "the report sees it");
        }
    }

    @Test
    void anOpenLoopRunMeasuresTheClientToo() {
        List<RequestSpec> specs = List.of(new RequestSpec(0, "open", 4, 5));
        OpenLoopSettings settings = OpenLoopSettings.builder(50).arrival(Arrival.constant())
                .duration(Duration.ofMillis(300)).timeout(Duration.ofSeconds(20)).build();
        try (NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                EndpointUrls.chatCompletions(server.baseUrl()), "m").connectionMode(ConnectionMode.ON_DEMAND).build())) {
            OpenLoopResult result = new OpenLoopRunner(client, text -> -1).run(specs, settings);
            assertTrue(result.records().size() > 0);
            assertNotNull(result.clientOverhead());
            assertTrue(result.clientOverhead().lagSamples() > 0, result.clientOverhead().toString());
            assertEquals(client.connectionsOpened(),
                    result.records().stream().filter(r -> r.connectNanos() >= 0).count());
        }
    }

    @Test
    void aMonitorWithoutEventLoopsStillMeasuresTheProcess() throws InterruptedException {
        ClientOverheadMonitor monitor = ClientOverheadMonitor.start((EventExecutorGroup) null);
        Thread.sleep(30);
        ClientOverhead overhead = monitor.stop();
        assertEquals(0, overhead.ioThreads());
        assertEquals(0, overhead.lagSamples());
        assertTrue(Double.isNaN(overhead.ioBusyShareMax()));
        assertTrue(overhead.wallNanos() >= TimeUnit.MILLISECONDS.toNanos(30));
        assertEquals(overhead, monitor.stop(), "stop is idempotent");
    }
}
