package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * doctor against an https gateway with a private CA that wants a header and a key: the run's --ca-cert, --insecure,
 * --api-key-file and --header reach it the way token-benchmark does. The server is the JDK's, on loopback, with a
 * certificate of localhost ({@link LocalhostCertificate}).
 */
class DoctorTlsGatewayTest {
    private static final String KEY = "sk-gateway-secret-7f1c";
    private static final String GATEWAY_HEADER = "X-Gateway-Tenant";

    @TempDir
    static Path dir;
    private static HttpsServer https;
    private static Path pem;
    private static Path keyFile;
    private static String base;

    @BeforeAll
    static void startGateway() throws Exception {
        pem = LocalhostCertificate.pem();
        keyFile = dir.resolve("key.txt");
        Files.writeString(keyFile, KEY + "\n");
        https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(LocalhostCertificate.serverContext()));
        https.createContext("/v1/models", exchange -> answer(exchange, "application/json",
                "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\"}]}"));
        https.createContext("/v1/chat/completions", exchange -> answer(exchange, "text/event-stream", String.join("",
                event("{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"},\"finish_reason\":null}]}"),
                event("{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"),
                event("{\"choices\":[],\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1,"
                        + "\"total_tokens\":5}}"),
                "data: [DONE]\n\n")));
        https.start();
        base = "https://127.0.0.1:" + https.getAddress().getPort() + "/v1";
    }

    @AfterAll
    static void stopGateway() {
        if (https != null) https.stop(0);
    }

    /** 401 unless the key and the gateway's header came; else the body. */
    private static void answer(HttpExchange exchange, String type, String body) throws IOException {
        exchange.getRequestBody().readAllBytes();
        boolean allowed = ("Bearer " + KEY).equals(exchange.getRequestHeaders().getFirst("Authorization"))
                && "team-a".equals(exchange.getRequestHeaders().getFirst(GATEWAY_HEADER));
        byte[] bytes = (allowed ? body : "{\"error\":{\"message\":\"unauthorized\"}}")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", allowed ? type : "application/json");
        exchange.sendResponseHeaders(allowed ? 200 : 401, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String event(String json) {
        return "data: " + json + "\n\n";
    }

    /** doctor with the gateway as OPENAI_API_BASE and no key variable: the key comes from --api-key-file. */
    private static CliRun doctor(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "doctor";
        System.arraycopy(args, 0, all, 1, args.length);
        return CliRun.of(Map.of("OPENAI_API_BASE", base), all);
    }

    @Test
    void theRunsTrustKeyFileAndHeaderPassEveryCheck() {
        CliRun run = doctor("--ca-cert", pem.toString(), "--api-key-file", keyFile.toString(),
                "--header", GATEWAY_HEADER + ": team-a");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[PASS] API key: GET " + base + "/models answered 200"), run::toString);
        assertTrue(run.out().contains("[PASS] streaming: 2 SSE events"), run::toString);
        assertTrue(run.out().contains("[PASS] usage: usage reported (1 completion tokens)"), run::toString);
        assertTrue(run.out().contains("[PASS] TLS: certificate verified against --ca-cert " + pem), run::toString);
        assertFalse(run.out().contains(KEY) || run.err().contains(KEY), run::toString);
    }

    @Test
    void withoutTheCaTheHandshakeFailsWithTheCaCertHint() {
        CliRun run = doctor("--api-key-file", keyFile.toString(), "--header", GATEWAY_HEADER + ": team-a");
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] API key: GET " + base + "/models failed"), run::toString);
        assertTrue(run.out().contains("[FAIL] TLS: no verified https exchange completed"), run::toString);
        assertTrue(run.out().contains("--ca-cert FILE"), run::toString);
    }

    @Test
    void insecureReachesItButTheTlsCheckWarns() {
        CliRun run = doctor("--insecure", "--api-key-file", keyFile.toString(),
                "--header", GATEWAY_HEADER + ": team-a");
        assertEquals(0, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[PASS] streaming:"), run::toString);
        assertTrue(run.out().contains("[WARN] TLS: NOT verified (--insecure)"), run::toString);
        assertTrue(run.err().contains("--insecure: TLS certificates and host names are NOT verified"), run::toString);
    }

    @Test
    void theGatewaysHeaderIsWhatLetsTheKeyThrough() {
        CliRun run = doctor("--ca-cert", pem.toString(), "--api-key-file", keyFile.toString());
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] API key: GET " + base + "/models answered HTTP 401"), run::toString);
        assertTrue(run.out().contains("put the right key in --api-key-file " + keyFile), run::toString);
    }

    @Test
    void contradictoryTrustFlagsAreRefused() {
        CliRun run = doctor("--insecure", "--ca-cert", pem.toString(), "--api-key-file", keyFile.toString());
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().contains("--insecure and --ca-cert contradict each other"), run::toString);
    }
}
