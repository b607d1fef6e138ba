package io.llmperf4j.cli;

import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** doctor against a real server on loopback: all pass, then each classic mistake fails with the right hint. */
class DoctorCommandTest {
    private static final String KEY = "sk-doctor-secret-91b3";
    private static SimulatedServer server;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder().apiKey(KEY).acceptAnyModel(false)
                .modelIds("served-model").timeToFirstToken(Duration.ofMillis(2))
                .interTokenDelay(Duration.ofMillis(1)).build());
    }

    @AfterAll
    static void stop() {
        server.close();
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
        assertFalse(run.out().contains(KEY));
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
        assertTrue(run.out().contains("use one of the served model ids [served-model]"), run::toString);
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
}
