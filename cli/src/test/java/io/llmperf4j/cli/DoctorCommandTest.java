package io.llmperf4j.cli;

import io.llmperf4j.server.FaultKind;
import io.llmperf4j.server.FaultPlan;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** doctor against a real server on loopback: all pass, then each classic mistake fails with the right hint. */
class DoctorCommandTest {
    private static final String KEY = "sk-doctor-secret-91b3";

    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.apiKey(KEY).acceptAnyModel(false)
            .modelIds("served-model").timeToFirstToken(Duration.ofMillis(2))
            .interTokenDelay(Duration.ofMillis(1)));

    /** doctor --llm-api {@code api} with that API's variables (ANTHROPIC_* for anthropic). */
    private static CliRun doctorFor(String api, String base, String key, String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "doctor";
        all[1] = "--llm-api";
        all[2] = api;
        System.arraycopy(args, 0, all, 3, args.length);
        Map<String, String> env = api.equals("anthropic")
                ? Map.of("ANTHROPIC_API_BASE", base, "ANTHROPIC_API_KEY", key)
                : Map.of("OPENAI_API_BASE", base, "OPENAI_API_KEY", key);
        return CliRun.of(env, all);
    }

    private static CliRun doctor(String base, String key, String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "doctor";
        System.arraycopy(args, 0, all, 1, args.length);
        return CliRun.of(Map.of("OPENAI_API_BASE", base, "OPENAI_API_KEY", key), all);
    }

    @Test
    void everyCheckPassesAgainstTheEmbeddedServer() {
        CliRun run = doctor(server.baseUrl(), KEY, "--model", "served-model");
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.out().contains("[FAIL]"), run::toString);
        for (String check : new String[] {"base URL", "reachable", "API key", "model", "streaming", "usage", "TLS"}) {
            assertTrue(run.out().contains("[PASS] " + check + ":"), check + " in " + run);
        }
        String origin = server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
        assertTrue(run.out().lines().anyMatch(l -> l.startsWith("[PASS] server metrics: " + origin + "/metrics "
                + "answers with ") && l.endsWith(" families (vLLM)")), run::toString);
        assertFalse(run.out().contains(KEY));
        // the check's TTFT is a new client's first request: the part until the request was written is told apart
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[PASS] streaming: \\d+ SSE events, first "
                + "content after (\\d+) ms \\((\\d+) ms of it a new client's first request and its connect, until "
                + "the request was written; the first content (\\d+) ms after that\\), finish_reason ").matcher(run.out());
        assertTrue(m.find(), run::toString);
        long total = Long.parseLong(m.group(1));
        long sum = Long.parseLong(m.group(2)) + Long.parseLong(m.group(3));
        assertTrue(Math.abs(total - sum) <= 1, "the two parts make the whole, to the rounding: " + m.group());
    }

    @Test
    void wrongPortFailsReachabilityWithAHint() {
        int closedPort = ClosedPort.find();
        CliRun run = doctor("http://127.0.0.1:" + closedPort + "/v1", KEY);
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] reachable:"), run::toString);
        assertTrue(run.out().contains("fix: check host and port in OPENAI_API_BASE"), run::toString);
    }

    @Test
    void wrongKeyFailsWithAKeyHint() {
        CliRun run = doctor(server.baseUrl(), "sk-wrong");
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] API key: GET " + server.baseUrl() + "/models answered HTTP 401"),
                run::toString);
        assertTrue(run.out().contains("fix: export the right OPENAI_API_KEY"), run::toString);
        assertFalse(run.out().contains("sk-wrong"), run::toString);
    }

    @Test
    void wrongModelFailsWithTheServedIds() {
        CliRun run = doctor(server.baseUrl(), KEY, "--model", "no-such-model");
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] model: 'no-such-model' is not listed by /models"), run::toString);
        assertTrue(run.out().contains("use one of the served model ids as --model: served-model"), run::toString);
        assertTrue(run.out().contains("[FAIL] streaming: HTTP_STATUS 404"), run::toString);
    }

    @Test
    void missingV1IsFlagged() {
        String withoutV1 = server.baseUrl().substring(0, server.baseUrl().length() - "/v1".length());
        CliRun run = doctor(withoutV1, KEY, "--model", "served-model");
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] base URL:"), run::toString);
        assertTrue(run.out().contains("try " + withoutV1 + "/v1"), run::toString);
    }

    @ParameterizedTest
    @CsvSource({"openai-completions,streaming,/v1/completions", "anthropic,streaming,/v1/messages",
            "embeddings,request,/v1/embeddings"})
    void everyApiPassesAgainstTheEmbeddedServer(String api, String requestCheck, String path) {
        CliRun run = doctorFor(api, server.baseUrl(), KEY, "--model", "served-model");
        assertEquals(0, run.exitCode(), run::toString);
        assertFalse(run.out().contains("[FAIL]"), run::toString);
        assertTrue(run.out().contains("[PASS] base URL: requests go to " + server.baseUrl().replace("/v1", "")
                + path), run::toString);
        for (String check : new String[] {"reachable", "API key", "model", requestCheck, "usage", "TLS"}) {
            assertTrue(run.out().contains("[PASS] " + check + ":"), check + " in " + run);
        }
        assertFalse(run.out().contains(KEY));
    }

    @Test
    void anthropicWrongKeyNamesAnthropicApiKey() {
        CliRun run = doctorFor("anthropic", server.baseUrl(), "sk-wrong");
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] API key: GET " + server.baseUrl() + "/models answered HTTP 401"),
                run::toString);
        assertTrue(run.out().contains("fix: export the right ANTHROPIC_API_KEY"), run::toString);
        assertFalse(run.out().contains("sk-wrong"), run::toString);
    }

    @Test
    void anthropicWithoutItsBaseVariableIsAUsageError() {
        CliRun.of(Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", KEY), "doctor", "--llm-api",
                "anthropic").assertOneErrorLine(2, "ANTHROPIC_API_BASE is not set");
        CliRun.of(Map.of(), "doctor", "--llm-api", "litellm").assertOneErrorLine(2, "--llm-api litellm");
    }

    @Test
    void embeddingsUnderAWrongPathFailWithAPathHint() {
        CliRun run = doctorFor("embeddings", server.baseUrl() + "/extra", KEY, "--model", "served-model");
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] API key: GET " + server.baseUrl() + "/extra/models answered HTTP 404"),
                run::toString);
        assertTrue(run.out().contains("fix: the base URL is probably missing /v1 or has an extra path"),
                run::toString);
    }

    /** The request check of each API against a server whose every generation request gets one fault. */
    @ParameterizedTest
    @CsvSource(delimiterString = "|", value = {
            "anthropic|HTTP_401|HTTP_STATUS 401|export the right ANTHROPIC_API_KEY",
            "anthropic|MALFORMED_EVENT|MALFORMED_EVENT|the stream is not Anthropic SSE",
            "openai-completions|HTTP_404|HTTP_STATUS 404|check that the server serves /completions under OPENAI_API_BASE",
            "openai-completions|ERROR_EVENT|ERROR_IN_STREAM|answered 200 with an error object"})
    void aFaultyAnswerFailsTheRequestCheckWithAFix(String api, FaultKind fault, String detail, String fix) {
        try (SimulatedServer faulty = SimulatedServer.start(SimulatorConfig.builder().apiKey(KEY)
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1))
                .faultPlan(FaultPlan.sequence(fault)).build())) {
            CliRun run = doctorFor(api, faulty.baseUrl(), KEY);
            assertEquals(1, run.exitCode(), run::toString);
            assertTrue(run.out().contains("[PASS] API key:"), run::toString);
            assertTrue(run.out().lines().anyMatch(l -> l.startsWith("[FAIL] streaming:") && l.contains(detail)),
                    run::toString);
            assertTrue(run.out().contains(fix), run::toString);
        }
    }

    /** A complete stream without its end marker: a run counts it (as llmperf does) and warns, so doctor warns. */
    @Test
    void aStreamWithoutItsEndMarkerIsAWarning() {
        try (SimulatedServer faulty = SimulatedServer.start(SimulatorConfig.builder().apiKey(KEY)
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1))
                .faultPlan(FaultPlan.sequence(FaultKind.MISSING_DONE)).build())) {
            CliRun run = doctorFor("anthropic", faulty.baseUrl(), KEY);
            assertEquals(0, run.exitCode(), run::toString);
            assertTrue(run.out().lines().anyMatch(l -> l.startsWith("[WARN] streaming:")
                    && l.contains("ended without 'event: message_stop'")), run::toString);
            assertTrue(run.out().contains("END_MARKER_MISSING"), run::toString);
        }
    }

    /**
     * The run's connection flags: --idle-timeout 1 ends the streamed request of a server that stalls (30 s) after
     * its first events as the run's client would, an IDLE_TIMEOUT; doctor refused the flag before (exit 2) and waited
     * a fixed 15 s.
     */
    @Test
    void theRunsConnectionFlagsAreTakenAndUsed() {
        try (SimulatedServer stalling = SimulatedServer.start(SimulatorConfig.builder().apiKey(KEY)
                .timeToFirstToken(Duration.ofMillis(2)).interTokenDelay(Duration.ofMillis(1))
                .faultPlan(FaultPlan.sequence(FaultKind.STALL).withStallDuration(Duration.ofSeconds(30))).build())) {
            CliRun run = doctor(stalling.baseUrl(), KEY, "--idle-timeout", "1", "--connect-timeout", "5",
                    "--wait-for-server", "0", "--connection-mode", "per-request", "--header", "X-Gateway: g");
            assertEquals(1, run.exitCode(), run::toString);
            assertTrue(run.out().contains("[PASS] API key:"), run::toString);
            // no internal "-1" for a failure without a code (QA round 2: "IDLE_TIMEOUT -1:")
            assertTrue(run.out().lines().anyMatch(l -> l.startsWith("[FAIL] streaming: IDLE_TIMEOUT: no bytes ")
                    && l.contains("(idle timeout 1000 ms)")), run::toString);
        }
    }

    @Test
    void aBadConnectionFlagIsAUsageError() {
        CliRun run = doctor(server.baseUrl(), KEY, "--idle-timeout", "0");
        assertEquals(2, run.exitCode(), run::toString);
        assertTrue(run.err().contains("--idle-timeout"), run::toString);
    }

    /**
     * The server's text doctor prints (the ids /models lists, an error body) made printable by the console's rule: an
     * ANSI escape, a NUL or a CR from a server must not reach the terminal raw. The first id is still the one sent.
     */
    @Test
    void theServersIdsAndErrorBodyArePrintable() throws IOException {
        String red = "\u001b[31mred\u0000";
        HttpServer raw = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        java.util.List<String> modelsSent = new java.util.concurrent.CopyOnWriteArrayList<>();
        raw.createContext("/v1/models", exchange -> answer(exchange, 200, "application/json",
                "{\"data\":[{\"id\":\"\\u001b[31mred\\u0000\"},{\"id\":\"ok\"}]}"));
        raw.createContext("/v1/chat/completions", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            // Jackson writes the escape in capitals
            if (body.toLowerCase(java.util.Locale.ROOT).contains("\\u001b[31mred\\u0000")) modelsSent.add(red);
            answer(exchange, 500, "text/plain", "bad \u001b[2Jthing\u0000 here\r\nend");
        });
        raw.start();
        try {
            CliRun run = doctor("http://127.0.0.1:" + raw.getAddress().getPort() + "/v1", KEY);
            assertEquals(1, run.exitCode(), run::toString);
            assertTrue(run.out().contains("[PASS] model: using '\\x1b[31mred\\x00', the first of 2 served "
                    + "(\\x1b[31mred\\x00, ok)"), run::toString);
            assertTrue(run.out().lines().anyMatch(l -> l.startsWith("[FAIL] streaming: HTTP_STATUS 500: ")
                    && l.contains("bad \\x1b[2Jthing\\x00 here end")), run::toString);
            assertFalse(run.out().contains("\u001b") || run.out().contains("\u0000"), run::toString);
            assertEquals(java.util.List.of(red), modelsSent, "the id as served is the one sent");
        } finally {
            raw.stop(0);
        }
    }

    private static void answer(HttpExchange exchange, int status, String type, String body) throws IOException {
        try (exchange) {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(status, bytes.length);
            exchange.getResponseBody().write(bytes);
        }
    }
}
