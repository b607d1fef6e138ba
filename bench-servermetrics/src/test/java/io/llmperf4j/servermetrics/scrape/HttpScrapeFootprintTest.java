package io.llmperf4j.servermetrics.scrape;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an http scrape costs the JVM it runs in (issue 15, the run's peak RSS): no class of the JDK's TLS stack or of
 * {@code java.net.http} (which together loaded some 870 classes, about 4 MB of metaspace, on every run), none of
 * Netty's, and no thread. Checked in a fresh JVM, the class-load log of one probe, since this test JVM has long loaded both.
 */
class HttpScrapeFootprintTest {

    @TempDir
    Path dir;

    @Test
    void httpProbeLoadsNoTlsNorJavaNetHttpNorNettyAndStartsNoThread() throws Exception {
        try (RawHttpServer server = new RawHttpServer(RawHttpServer.ok("up 1\n"))) {
            Path log = dir.resolve("class-load.txt");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process child = new ProcessBuilder(java, "-Xlog:class+load:file=" + log,
                    "-cp", System.getProperty("java.class.path"), ProbeOnce.class.getName(),
                    server.url("/v1").toString()).redirectErrorStream(true).start();
            String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(child.waitFor(60, TimeUnit.SECONDS), out);
            assertEquals(0, child.exitValue(), out);

            assertEquals(List.of("ok: serves Prometheus text: 1 families, 1 samples, no vLLM/SGLang/TGI names"),
                    out.lines().toList(), "the probe answered and left no thread behind");
            List<String> loaded = Files.readAllLines(log);
            String connection = " " + ScrapeConnection.class.getName() + " ";
            assertTrue(loaded.stream().anyMatch(l -> l.contains(connection)), "the log is the probe's");
            List<String> tlsOrJdkHttp = loaded.stream()
                    .filter(l -> l.matches(".*\\] (javax\\.net\\.ssl|sun\\.security\\.ssl|jdk\\.internal\\.net\\.http"
                            + "|java\\.net\\.http)\\..*"))
                    .toList();
            assertEquals(List.of(), tlsOrJdkHttp);
            // Netty's classes are the engine's: a scrape driving them with a channel of its own, just before the
            // measured window, sent the engine's compiled I/O path back to the JIT inside it
            List<String> netty = loaded.stream().filter(l -> l.matches(".*\\] io\\.netty\\..*")).toList();
            assertEquals(List.of(), netty);
            assertTrue(server.requests.get(0).contains("Authorization: Bearer sk-child\r\n"));
        }
    }
}
