package io.llmperf4j.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A mistyped --model: the pre-run check's line names the models the server serves, from one GET /models sent with
 * the run's key, against a real server on 127.0.0.1 that refuses unknown models as vLLM (404) or SGLang (400) word it.
 */
class WrongModelTest {
    private static final String KEY = "sk-wrong-model-test-0123456789";
    private static final String VLLM_404 = "{\"object\":\"error\",\"message\":\"The model `wrong` does not exist.\","
            + "\"type\":\"NotFoundError\",\"param\":null,\"code\":404}";

    private HttpServer server;
    /** Every request the server saw: "METHOD path auth". */
    private final List<String> seen = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) server.stop(0);
    }

    /** A server whose chat endpoint answers {@code status, body} and whose /v1/models answers {@code models}. */
    private String start(int status, String body, int modelsStatus, String models) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/chat/completions", exchange -> answer(exchange, status, body));
        server.createContext("/v1/models", exchange -> answer(exchange, modelsStatus, models));
        server.start();
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/v1";
    }

    private void answer(HttpExchange exchange, int status, String body) throws IOException {
        seen.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                + exchange.getRequestHeaders().getFirst("Authorization"));
        exchange.getRequestBody().readAllBytes();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    private static CliRun tokenBenchmark(String base, Path results) {
        return CliRun.of(Map.of("OPENAI_API_BASE", base, "OPENAI_API_KEY", KEY), "token-benchmark", "--model",
                "wrong", "--max-num-completed-requests", "4", "--mean-output-tokens", "5", "--stddev-output-tokens",
                "0", "--no-server-metrics", "--no-client-warmup", "--results-dir", results.toString());
    }

    private static String models(String... ids) {
        StringBuilder json = new StringBuilder("{\"object\":\"list\",\"data\":[");
        for (int i = 0; i < ids.length; i++) {
            json.append(i == 0 ? "" : ",").append("{\"id\":\"").append(ids[i]).append("\",\"object\":\"model\"}");
        }
        return json.append("]}").toString();
    }

    @Test
    void a404NamesTheServedModelsFromOneGetWithTheRunsKey(@TempDir Path tmp) throws IOException {
        String base = start(404, VLLM_404, 200, models("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen2.5-7B"));
        CliRun run = tokenBenchmark(base, tmp.resolve("results"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "llmperf4j: error: the server refused the pre-run request (one "
                + "request of one token) with HTTP 404: The model `wrong` does not exist; the server serves: "
                + "meta-llama/Llama-3.1-8B-Instruct, Qwen/Qwen2.5-7B; check --model 'wrong' and that the base URL "
                + "ends in /v1 (the request went to " + base + "/chat/completions)");
        assertEquals("llmperf4j: error: the server refused the pre-run request (one request of one token) with HTTP "
                + "404: The model `wrong` does not exist; the server serves: meta-llama/Llama-3.1-8B-Instruct, "
                + "Qwen/Qwen2.5-7B; check --model 'wrong' and that the base URL ends in /v1 (the request went to "
                + base + "/chat/completions) (run with --debug for details)", run.err().strip(), "the exact line");
        assertEquals(List.of("POST /v1/chat/completions Bearer " + KEY, "GET /v1/models Bearer " + KEY), seen,
                "the check's request, then one GET /models with the run's key");
        assertFalse(run.err().contains(KEY), run::toString);
        assertFalse(Files.exists(tmp.resolve("results")), "no run, no results folder");
    }

    @Test
    void moreThanFiveServedModelsAreCutWithHowManyMore(@TempDir Path tmp) throws IOException {
        String base = start(404, VLLM_404, 200, models("a", "b", "c", "d", "e", "f", "g"));
        CliRun run = tokenBenchmark(base, tmp.resolve("results"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "does not exist; the server serves: a, b, c, d, e and 2 more; "
                + "check --model 'wrong' and");
    }

    @Test
    void doctorNamesAtMostFiveServedIdsToo() throws IOException {
        String base = start(404, VLLM_404, 200, models("a", "b", "c", "d", "e", "f", "g"));
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", base, "OPENAI_API_KEY", KEY), "doctor", "--model", "wrong");
        assertEquals(1, run.exitCode(), run::toString);
        assertTrue(run.out().contains("[FAIL] model: 'wrong' is not listed by /models"), run::toString);
        assertTrue(run.out().contains("use one of the served model ids as --model: a, b, c, d, e and 2 more"),
                run::toString);
        assertFalse(run.out().contains(KEY), run::toString);
    }

    @Test
    void aModelsEndpointThatFailsIsSaidInsteadOfTheList(@TempDir Path tmp) throws IOException {
        String base = start(404, VLLM_404, 404, "{\"detail\":\"Not Found\"}");
        CliRun run = tokenBenchmark(base, tmp.resolve("results"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "llmperf4j: error: the server refused the pre-run request (one "
                + "request of one token) with HTTP 404: The model `wrong` does not exist (GET " + base + "/models did "
                + "not answer: HTTP 404); check --model 'wrong' and that the base URL ends in /v1 (the request went "
                + "to " + base + "/chat/completions)");
        assertEquals(2, seen.size(), "never more than one extra request: " + seen);
    }

    @Test
    void a400SayingTheModelIsUnknownNamesTheServedModelsToo(@TempDir Path tmp) throws IOException {
        // SGLang's words and status for a model it does not serve
        String base = start(400, "{\"object\":\"error\",\"message\":\"The model 'wrong' does not exist\","
                + "\"type\":\"BadRequestError\",\"param\":null,\"code\":400}", 200, models("default"));
        CliRun run = tokenBenchmark(base, tmp.resolve("results"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "with HTTP 400: The model 'wrong' does not exist; the server "
                + "serves: default; check --model, --additional-sampling-params and the request options");
    }

    @Test
    void otherRefusalsSendNoGet(@TempDir Path tmp) throws IOException {
        String base = start(400, "{\"object\":\"error\",\"message\":\"max_tokens must be at least 1\"}", 200,
                models("default"));
        CliRun run = tokenBenchmark(base, tmp.resolve("results"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "with HTTP 400: max_tokens must be at least 1; check --model");
        assertFalse(run.err().contains("serves"), run::toString);
        assertEquals(1, seen.size(), "no GET /models for a refusal that is not about the model: " + seen);

        seen.clear();
        server.stop(0);
        base = start(401, "{\"error\":{\"message\":\"Incorrect API key provided\"}}", 200, models("default"));
        run = tokenBenchmark(base, tmp.resolve("results"));
        run.assertOneErrorLine(ExitCodes.FAILURE, "with HTTP 401: Incorrect API key provided; check the API key in "
                + "OPENAI_API_KEY");
        assertEquals(1, seen.size(), "no GET /models for a wrong key: " + seen);
    }
}
