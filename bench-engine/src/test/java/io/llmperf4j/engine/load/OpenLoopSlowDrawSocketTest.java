package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.testserver.TimedSseServer;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The open loop's sends take fresh requests as the closed loop's do, without blocking inside the supply: a draw that
 * never comes (a stuck drawer here) holds the pacer only until a stop, which ends the run at once with what was sent.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenLoopSlowDrawSocketTest {
    private static final int BATCH = 40;
    /** Batches 0 to 2 are drawn at once; batch 3 waits until the test ends. */
    private static final int DRAWN = 3 * BATCH;

    private static List<RequestSpec> batch(int k) {
        return IntStream.range(0, BATCH).mapToObj(i -> new RequestSpec(i, "p-" + k + "-" + i, 10, 2)).toList();
    }

    @Test
    void aStopEndsTheWaitForADrawThatDoesNotCome() throws Exception {
        CountDownLatch stuck = new CountDownLatch(1);
        IntFunction<List<RequestSpec>> batches = k -> {
            if (k >= 3) {
                try {
                    stuck.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return batch(k);
        };
        List<String> notices = Collections.synchronizedList(new ArrayList<>());
        FreshRequests fresh = new FreshRequests(batch(0), batches, notices::add);
        try (TimedSseServer server = TimedSseServer.start(Duration.ofMillis(1), Duration.ofMillis(1));
             NettyLlmClient client = new NettyLlmClient(ClientConfig.builder(
                     EndpointUrls.chatCompletions(server.baseUrl()), "m").maxConnections(8).build())) {
            OpenLoopRunner runner = new OpenLoopRunner(client, String::length);
            OpenLoopSettings settings = OpenLoopSettings.builder(1000).arrival(Arrival.constant())
                    .maxRequests(10_000).maxConcurrency(4).timeout(Duration.ofMinutes(1)).build();
            CompletableFuture<OpenLoopResult> run = CompletableFuture.supplyAsync(() -> runner.run(fresh, settings));
            while (server.requests() < DRAWN) Thread.sleep(5); // every request drawn is sent: the pacer waits
            runner.stop();
            OpenLoopResult result;
            try {
                result = run.get(30, TimeUnit.SECONDS);
            } finally {
                stuck.countDown();
            }

            assertTrue(result.stopped());
            assertEquals(DRAWN, result.requestsSent());
            assertEquals(DRAWN, result.records().size());
            // the last ones the server took may still have been on the wire at the stop (4 in flight at most)
            long cancelled = result.records().stream().filter(r -> !r.succeeded()).count();
            assertTrue(cancelled <= 4 && result.records().stream().allMatch(r -> r.succeeded()
                    || r.failure().kind() == FailureKind.CANCELLED), result.records()::toString);
            assertEquals(DRAWN, server.requests());
        } finally {
            stuck.countDown();
        }
    }
}
