package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.llmperf4j.servermetrics.exposition.Exposition;
import io.llmperf4j.servermetrics.exposition.Sample;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The scrape's HTTP exchange against a real server on 127.0.0.1 that writes exactly the bytes each test sets. */
class MetricsFetcherTest {

    private static final String HEAD_200 = "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n";

    private static ServerMetricsConfig config(RawHttpServer server) {
        return ServerMetricsConfig.forEndpoint(server.url("/v1"), null).withTimeout(Duration.ofSeconds(10));
    }

    private static void write(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static List<Double> values(Exposition e) {
        return e.samples().stream().map(Sample::value).toList();
    }

    private static ScrapeFailedException failure(ServerMetricsConfig c) {
        try (MetricsFetcher f = new MetricsFetcher(c)) {
            return assertThrows(ScrapeFailedException.class, f::fetch);
        }
    }

    @Test
    void contentLengthBodyAndTheRequestItAnswers() throws Exception {
        try (RawHttpServer server = new RawHttpServer(RawHttpServer.ok("up 1\nother 2.5\n"))) {
            ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(server.url("/v1"), "sk-test-1")
                    .withMetricsUrl(server.url("/metrics?name=up"));
            try (MetricsFetcher f = new MetricsFetcher(c)) {
                assertEquals(List.of(1.0, 2.5), values(f.fetch()));
            }
            int port = server.url("/").getPort();
            assertEquals("GET /metrics?name=up HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUser-Agent: llmperf4j\r\n"
                    + "Accept: " + MetricsFetcher.ACCEPT + "\r\nAuthorization: Bearer sk-test-1\r\n\r\n",
                    server.requests.get(0));
        }
    }

    @Test
    void chunkedBodyInPiecesThatSplitLinesAndChunkHeaders() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            write(out, HEAD_200 + "Transfer-Encoding: chunked\r\n\r\n");
            write(out, "5\r\nup 1\n\r\n");
            write(out, "0");
            write(out, "a\r\nsecond 2");
            write(out, "2\n\r\n8\r\nthird 3\n\r\n0\r\n\r\n");
            return true;
        })) {
            try (MetricsFetcher f = new MetricsFetcher(config(server))) {
                assertEquals(List.of(1.0, 22.0, 3.0), values(f.fetch()));
            }
        }
    }

    @Test
    void bodyEndedByTheConnectionsCloseAndAnHttp10Answer() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            write(out, (c.number == 1 ? "HTTP/1.1 200 OK\r\nConnection: close\r\n" : "HTTP/1.0 200 OK\r\n")
                    + "Content-Type: text/plain; version=0.0.4\r\n\r\nup " + c.number + "\n");
            return false;
        })) {
            try (MetricsFetcher f = new MetricsFetcher(config(server))) {
                assertEquals(List.of(1.0), values(f.fetch()));
                assertEquals(List.of(2.0), values(f.fetch()), "a new connection for the next scrape");
            }
            assertEquals(2, server.connections());
        }
    }

    @Test
    void keptConnectionCarriesTheNextScrapes() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            write(out, HEAD_200 + "Content-Length: 6\r\n\r\nup " + c.requests + "\n\n");
            return true;
        })) {
            try (MetricsFetcher f = new MetricsFetcher(config(server))) {
                for (double i = 1; i <= 3; i++) assertEquals(List.of(i), values(f.fetch()));
            }
            assertEquals(1, server.connections());
        }
    }

    @Test
    void keptConnectionTheServerClosedMeanwhileIsReplacedOnce() throws Exception {
        // keep-alive by the headers, closed right after each answer, as by an idle timeout shorter than the interval
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            write(out, HEAD_200 + "Content-Length: 5\r\n\r\nup " + c.number + "\n");
            return false;
        })) {
            try (MetricsFetcher f = new MetricsFetcher(config(server))) {
                assertEquals(List.of(1.0), values(f.fetch()));
                assertEquals(List.of(2.0), values(f.fetch()));
            }
            assertEquals(2, server.connections());
            assertEquals(2, server.requests.size());
        }
    }

    @Test
    void closedWithoutAnAnswerOnANewConnectionIsNotRetried() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> false)) {
            ScrapeFailedException e = failure(config(server));
            assertEquals("the server closed the connection without answering", e.getMessage());
            assertEquals(null, e.httpStatus());
            assertEquals(1, server.connections());
        }
    }

    @Test
    void statusErrorsCarryTheStatusAndKeepTheConnection() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            write(out, c.requests == 1
                    ? "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nbusy"
                    : "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
            return true;
        })) {
            try (MetricsFetcher f = new MetricsFetcher(config(server))) {
                ScrapeFailedException busy = assertThrows(ScrapeFailedException.class, f::fetch);
                assertEquals("HTTP 503", busy.getMessage());
                assertEquals(503, busy.httpStatus());
                assertEquals("text/plain", busy.contentType());
                ScrapeFailedException missing = assertThrows(ScrapeFailedException.class, f::fetch);
                assertEquals("HTTP 404", missing.getMessage());
                assertEquals(404, missing.httpStatus());
            }
            assertEquals(1, server.connections());
        }
    }

    @Test
    void bodyPastTheLimitIsRefusedAnnouncedOrChunked() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            if (head.startsWith("GET /announced ")) {
                write(out, HEAD_200 + "Content-Length: 1000000\r\n\r\n");
                c.stall(); // the refusal must not wait for a body it will not take
            } else {
                write(out, HEAD_200 + "Transfer-Encoding: chunked\r\n\r\n");
                for (int i = 10; i < 35; i++) write(out, "6\r\nm" + i + " 1\n\r\n"); // 25 × 6 bytes
                write(out, "0\r\n\r\n");
            }
            return true;
        })) {
            ServerMetricsConfig small = new ServerMetricsConfig(server.url("/announced"), Duration.ofSeconds(1),
                    Duration.ofSeconds(10), server.url("/v1"), null, null, 100, null);
            assertEquals("body exceeds the allowed maximum (100 bytes)", failure(small).getMessage());
            assertEquals("body exceeds the allowed maximum (100 bytes)",
                    failure(small.withMetricsUrl(server.url("/chunked"))).getMessage());
            ServerMetricsConfig exact = new ServerMetricsConfig(server.url("/chunked"), Duration.ofSeconds(1),
                    Duration.ofSeconds(10), server.url("/v1"), null, null, 200, null);
            try (MetricsFetcher f = new MetricsFetcher(exact)) {
                assertEquals(25, f.fetch().sampleCount(), "150 bytes are within a limit of 200");
            }
        }
    }

    @Test
    void stallsBeforeTheHeadAndInTheBodyAreTimeouts() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            if (head.startsWith("GET /trickle ")) {
                write(out, HEAD_200 + "Content-Length: 1000\r\n\r\n");
                for (int i = 0; i < 1000; i++) { // every read returns in time; the scrape as a whole does not
                    write(out, "#");
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return false;
                    }
                }
            }
            c.stall();
            return false;
        })) {
            ServerMetricsConfig c = config(server).withTimeout(Duration.ofMillis(200));
            assertEquals("timed out after 200 ms", failure(c).getMessage());
            assertEquals("timed out after 200 ms", failure(c.withMetricsUrl(server.url("/trickle"))).getMessage());
        }
    }

    @Test
    void cutShortAndMalformedResponses() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            if (head.startsWith("GET /short ")) write(out, HEAD_200 + "Content-Length: 100\r\n\r\nup 1\n");
            else if (head.startsWith("GET /chunks ")) write(out, HEAD_200 + "Transfer-Encoding: chunked\r\n\r\n5\r\nu");
            else write(out, "SPDY/3 200 OK\r\n\r\n");
            return false;
        })) {
            assertEquals("connection closed before the whole response came",
                    failure(config(server).withMetricsUrl(server.url("/short"))).getMessage());
            assertEquals("connection closed before the whole response came",
                    failure(config(server).withMetricsUrl(server.url("/chunks"))).getMessage());
            String malformed = failure(config(server)).getMessage();
            assertTrue(malformed.startsWith("malformed HTTP response ("), malformed);
        }
    }

    @Test
    void interimContinueIsSkipped() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            write(out, "HTTP/1.1 100 Continue\r\n\r\n" + HEAD_200 + "Content-Length: 5\r\n\r\nup 7\n");
            return true;
        })) {
            try (MetricsFetcher f = new MetricsFetcher(config(server))) {
                assertEquals(List.of(7.0), values(f.fetch()));
            }
        }
    }

    @Test
    void closeFromAnotherThreadEndsAScrapeInFlight() throws Exception {
        CountDownLatch asked = new CountDownLatch(1);
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            asked.countDown();
            c.stall();
            return false;
        })) {
            MetricsFetcher f = new MetricsFetcher(config(server).withTimeout(Duration.ofSeconds(30)));
            CompletableFuture<String> reason = CompletableFuture.supplyAsync(() -> {
                try {
                    f.fetch();
                    return "answered";
                } catch (ScrapeFailedException e) {
                    return e.getMessage();
                }
            });
            assertTrue(asked.await(10, TimeUnit.SECONDS));
            f.close();
            assertEquals("interrupted", reason.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void keyWithALineBreakIsNeverSentNorTold() throws Exception {
        try (RawHttpServer server = new RawHttpServer(RawHttpServer.ok("up 1\n"))) {
            ScrapeFailedException e = failure(ServerMetricsConfig.forEndpoint(server.url("/v1"), "sk-1\r\nX-Evil: 1"));
            assertEquals("the Authorization header holds a character an HTTP header cannot carry", e.getMessage());
            assertFalse(e.getMessage().contains("sk-1"));
            assertEquals(0, server.connections());
        }
    }

    @Test
    void redirectToAnotherSchemeIsAnInvalidUrl() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, out, c) -> {
            write(out, "HTTP/1.1 302 Found\r\nLocation: ftp://127.0.0.1/metrics\r\nContent-Length: 0\r\n\r\n");
            return true;
        })) {
            assertEquals("invalid URL ftp://127.0.0.1/metrics", failure(config(server)).getMessage());
        }
    }

    @Test
    void unknownHostIsTold() {
        ServerMetricsConfig c = ServerMetricsConfig.forEndpoint(URI.create("http://metrics.invalid/v1"), null);
        assertEquals("host not found", failure(c).getMessage());
    }
}
