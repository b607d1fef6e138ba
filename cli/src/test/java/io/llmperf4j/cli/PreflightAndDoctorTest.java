package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpServer;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The pre-run check and doctor against real servers on 127.0.0.1: one that accepts and never answers, one that
 * streams without usage (and records the bodies it gets), and the simulator refusing a wrong key.
 */
class PreflightAndDoctorTest {

    private static CliRun tokenBenchmark(Map<String, String> env, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of("token-benchmark", "--model", "m",
                "--mean-output-tokens", "5", "--stddev-output-tokens", "0", "--no-server-metrics",
                "--no-client-warmup"));
        args.addAll(List.of(extra));
        return CliRun.of(env, args.toArray(String[]::new));
    }

    @Test
    void aServerThatNeverAnswersIsWaitedForAtMostTheRunsTimeoutAndTheProgressEndsWithTheSummarysCounts(
            @TempDir Path dir) throws Exception {
        List<Socket> held = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) held.add(silent.accept()); // read nothing, answer nothing
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            String endpoint = "http://127.0.0.1:" + silent.getLocalPort() + "/v1";
            CliRun run = tokenBenchmark(Map.of("OPENAI_API_BASE", endpoint, "OPENAI_API_KEY", "sk-never-shown-1234"),
                    "--max-num-completed-requests", "3", "--num-concurrent-requests", "2", "--timeout", "1",
                    "--results-dir", dir.toString());

            assertEquals(ExitCodes.REQUESTS_FAILED, run.exitCode(), run::toString);
            assertTrue(run.err().contains("llmperf4j: pre-run check: no answer from " + endpoint
                    + "/chat/completions in 1 s (--timeout); starting the run anyway"), run::toString);
            assertTrue(run.err().contains("If the server never answers, check its logs"), run::toString);
            assertTrue(run.err().contains("for a slow first answer, raise --timeout"), run::toString);
            assertFalse(run.toString().contains("sk-never-shown"), run::toString);
            // both requests in flight are cancelled at the timeout: the last progress line says so (cancelled, apart
            // from the server's failures) and that the third was never sent; the summary counts the two among its
            // failures, as llmperf's error rate does
            List<String> progress = run.err().lines().filter(l -> l.contains(" requests done")).toList();
            assertFalse(progress.isEmpty(), run::toString);
            assertTrue(progress.get(progress.size() - 1).startsWith("llmperf4j: 2/2 requests done (1 request not "
                    + "sent: --timeout ended the run), 0 failed, 2 cancelled, "), run::toString);
            assertTrue(run.toString().contains("2 requests (0 ok, 2 failed)"), run::toString);
        } finally {
            for (Socket socket : held) socket.close();
        }
    }

    /** A chat server that streams "hi" without usage, and a /models listing "m"; it keeps every body it gets. */
    private static HttpServer usagelessServer(List<String> bodies) throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.createContext("/v1/models", exchange -> {
            byte[] body = "{\"object\":\"list\",\"data\":[{\"id\":\"m\",\"object\":\"model\"}]}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        http.createContext("/v1/chat/completions", exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            String chunk = "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
                    + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":%s}]}";
            String sse = "data: " + String.format(chunk, "null") + "\n\n" + "data: " + String.format(chunk, "\"stop\"")
                    + "\n\n" + "data: [DONE]\n\n";
            byte[] body = sse.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        http.start();
        return http;
    }

    @Test
    void theChecksOneTokenWinsOverTheSamplingParamsMaxTokensAndTheRestOfTheBodyIsTheRuns() throws Exception {
        List<String> bodies = new CopyOnWriteArrayList<>();
        HttpServer http = usagelessServer(bodies);
        try {
            String base = "http://127.0.0.1:" + http.getAddress().getPort() + "/v1";
            CliRun run = tokenBenchmark(Map.of("OPENAI_API_BASE", base, "OPENAI_API_KEY", "k"),
                    "--max-num-completed-requests", "2", "--num-concurrent-requests", "1",
                    "--additional-sampling-params", "{\"max_tokens\":7,\"temperature\":0.5}");
            assertEquals(0, run.exitCode(), "a server without usage runs fine: " + run);
            assertEquals(3, bodies.size(), "the check, then the run's 2: " + bodies);
            assertTrue(bodies.get(0).contains("\"max_tokens\":1,"), bodies.get(0));
            assertTrue(bodies.get(0).contains("\"temperature\":0.5"), bodies.get(0));
            assertFalse(bodies.get(0).contains("\"max_tokens\":7"), bodies.get(0));
            for (String body : bodies.subList(1, 3)) {
                assertTrue(body.contains("\"max_tokens\":7,\"temperature\":0.5"), body);
            }
        } finally {
            http.stop(0);
        }
    }

    @Test
    void doctorWarnsAboutAServerWithoutUsageAndPasses() throws Exception {
        HttpServer http = usagelessServer(new CopyOnWriteArrayList<>());
        try {
            String base = "http://127.0.0.1:" + http.getAddress().getPort() + "/v1";
            CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", base, "OPENAI_API_KEY", "k"), "doctor");
            assertEquals(0, run.exitCode(), run::toString);
            assertFalse(run.out().contains("[FAIL]"), run::toString);
            assertTrue(run.out().contains("[WARN] usage: no usage chunk with stream_options.include_usage"),
                    run::toString);
            assertTrue(run.out().contains("note: a run works (llmperf never reads usage): output tokens are then "
                    + "counted by the client's tokenizer"), run::toString);
            assertTrue(run.out().contains("--tokenizer server is impossible against this server"), run::toString);
            assertTrue(run.out().contains("All checks passed, with warnings: see the notes above."), run::toString);
        } finally {
            http.stop(0);
        }
    }

    @Test
    void anUnsetOrEmptyKeyFailsDoctorAsItStopsTokenBenchmark() {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ofMillis(1)).build())) {
            Map<String, String> unset = Map.of("OPENAI_API_BASE", server.baseUrl());
            Map<String, String> empty = new HashMap<>(unset);
            empty.put("OPENAI_API_KEY", "");
            for (Map<String, String> env : List.of(unset, empty)) {
                String problem = env == unset ? "OPENAI_API_KEY is not set" : "OPENAI_API_KEY is set but empty";
                CliRun doctor = CliRun.of(env, "doctor", "--model", "m");
                assertEquals(ExitCodes.FAILURE, doctor.exitCode(), doctor::toString);
                assertTrue(doctor.out().contains("[FAIL] API key: " + problem
                        + ": token-benchmark refuses to run without it"), doctor::toString);
                assertTrue(doctor.out().contains("fix: export OPENAI_API_KEY (for local servers any dummy value "
                        + "works, e.g. OPENAI_API_KEY=EMPTY)"), doctor::toString);
                assertFalse(doctor.out().contains("[PASS] API key"), doctor::toString);
                assertTrue(doctor.out().contains("[PASS] streaming:"), "the other checks still run: " + doctor);

                tokenBenchmark(env, "--max-num-completed-requests", "1")
                        .assertOneErrorLine(ExitCodes.USAGE, problem + " (or pass --api-key-file)");
            }
        }
    }

    @Test
    void aRunStoppedByTheCheckRemovesTheFoldersItCreatedAndKeepsOnesThatExisted(@TempDir Path dir)
            throws Exception {
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder().apiKey("right-key").build())) {
            Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "wrong-key");
            Path created = dir.resolve("new").resolve("sub");
            CliRun run = tokenBenchmark(env, "--max-num-completed-requests", "1", "--results-dir",
                    created.toString());
            assertEquals(ExitCodes.FAILURE, run.exitCode(), run::toString);
            assertTrue(run.err().contains("refused the pre-run request"), run::toString);
            assertFalse(Files.exists(dir.resolve("new")), "the folders the run created are gone");

            Path existing = Files.createDirectories(dir.resolve("existing"));
            run = tokenBenchmark(env, "--max-num-completed-requests", "1", "--results-dir", existing.toString());
            assertEquals(ExitCodes.FAILURE, run.exitCode(), run::toString);
            assertTrue(Files.isDirectory(existing), "a folder that existed before stays");

            Path notes = Files.createDirectories(dir.resolve("with-notes")).resolve("notes.txt");
            Path inside = notes.getParent().resolve("run");
            Files.writeString(notes, "kept\n");
            run = tokenBenchmark(env, "--max-num-completed-requests", "1", "--results-dir", inside.toString());
            assertEquals(ExitCodes.FAILURE, run.exitCode(), run::toString);
            assertFalse(Files.exists(inside), "the empty folder it created is gone");
            assertEquals("kept\n", Files.readString(notes), "the folder above, which existed, is untouched");
        }
    }

    @Test
    void aResultsFolderThatCannotBeCreatedSaysSoPlainly() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "Linux /proc");
        Map<String, String> env = Map.of("OPENAI_API_BASE", "http://127.0.0.1:" + ClosedPort.find() + "/v1",
                "OPENAI_API_KEY", "k");
        tokenBenchmark(env, "--max-num-completed-requests", "1", "--results-dir", "/proc/x")
                .assertOneErrorLine(ExitCodes.FAILURE, "results folder /proc/x cannot be created: the system "
                        + "refused a new folder in /proc (no such file or directory); choose another --results-dir");
    }
}
