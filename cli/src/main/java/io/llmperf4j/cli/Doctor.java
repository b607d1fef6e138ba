package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.engine.client.ChatCompletionsClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the doctor checks in order; a check that cannot run because an earlier one failed is reported as failed with
 * the reason. The API key is sent but never printed.
 */
final class Doctor {
    private static final Duration TIMEOUT = Duration.ofSeconds(15);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final String apiKey;
    private final String requestedModel;
    private final List<DoctorCheck.Result> results = new ArrayList<>();

    Doctor(String base, String apiKey, String requestedModel) {
        this.base = base;
        this.apiKey = apiKey;
        this.requestedModel = requestedModel;
    }

    List<DoctorCheck.Result> run() {
        URI chat = checkUrlShape();
        if (chat == null || !checkReachable(chat)) {
            return results;
        }
        String model = checkKeyAndModel(modelsUri(chat));
        if (model != null) {
            checkStreamAndUsage(chat, model);
        }
        checkTls(chat);
        return results;
    }

    private URI checkUrlShape() {
        URI chat;
        try {
            chat = EndpointUrls.chatCompletions(base);
        } catch (IllegalArgumentException e) {
            results.add(DoctorCheck.Result.fail("base URL", e.getMessage(),
                    "set OPENAI_API_BASE to the API base, e.g. http://localhost:8000/v1"));
            return null;
        }
        String path = URI.create(base.endsWith("/") ? base : base + "/").getPath();
        if (path.contains("chat/completions/chat/completions")) {
            results.add(DoctorCheck.Result.fail("base URL", "'/chat/completions' appears twice in " + chat,
                    "set OPENAI_API_BASE to the base only, e.g. http://localhost:8000/v1"));
            return null;
        }
        if (!chat.getPath().contains("/v1/")) {
            results.add(DoctorCheck.Result.fail("base URL", "requests would go to " + chat + " (no /v1)",
                    "most OpenAI-compatible servers serve under /v1: try " + stripSlash(base) + "/v1"));
            return chat;
        }
        results.add(DoctorCheck.Result.pass("base URL", "requests go to " + chat));
        return chat;
    }

    private boolean checkReachable(URI chat) {
        try {
            Preflight.checkReachable(chat);
            results.add(DoctorCheck.Result.pass("reachable", chat.getHost() + ":" + port(chat) + " accepts connections"));
            return true;
        } catch (RunFailedException e) {
            results.add(DoctorCheck.Result.fail("reachable", e.getMessage(),
                    "check host and port in OPENAI_API_BASE and that the server is running (curl "
                            + stripSlash(base) + "/models)"));
            return false;
        }
    }

    /** GET /models: the key is accepted and the model is served. Returns the model to use, or null. */
    private String checkKeyAndModel(URI models) {
        HttpResponse<String> response;
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
            HttpRequest.Builder request = HttpRequest.newBuilder(models).timeout(TIMEOUT).GET();
            if (!apiKey.isEmpty()) {
                request.header("Authorization", "Bearer " + apiKey);
            }
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            results.add(DoctorCheck.Result.fail("API key", "GET " + models + " failed: " + e.getMessage(),
                    "check the URL and, for https, the server's certificate"));
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        int status = response.statusCode();
        if (status == 401 || status == 403) {
            results.add(DoctorCheck.Result.fail("API key", "GET " + models + " answered HTTP " + status,
                    "export the right OPENAI_API_KEY (no spaces or quotes; a server started with its own "
                            + "--api-key needs that key; OAuth-style tokens may have expired)"));
            return null;
        }
        if (status != 200) {
            results.add(DoctorCheck.Result.fail("API key", "GET " + models + " answered HTTP " + status,
                    status == 404 ? "the base URL is probably missing /v1 or has an extra path"
                            : "check the server's logs"));
            return null;
        }
        results.add(DoctorCheck.Result.pass("API key", "GET " + models + " answered 200"));
        return checkModelListed(response.body());
    }

    private String checkModelListed(String body) {
        List<String> ids = new ArrayList<>();
        try {
            for (JsonNode entry : JSON.readTree(body).path("data")) {
                ids.add(entry.path("id").asText());
            }
        } catch (IOException e) {
            results.add(DoctorCheck.Result.fail("model", "/models did not return JSON",
                    "the server is not OpenAI-compatible at this base URL"));
            return null;
        }
        if (requestedModel == null) {
            if (ids.isEmpty()) {
                results.add(DoctorCheck.Result.fail("model", "/models lists no model", "pass --model ID"));
                return null;
            }
            results.add(DoctorCheck.Result.pass("model", "using '" + ids.get(0) + "', the first of " + ids));
            return ids.get(0);
        }
        if (!ids.contains(requestedModel)) {
            results.add(DoctorCheck.Result.fail("model", "'" + requestedModel + "' is not listed by /models",
                    "use one of the served model ids " + ids + " as --model"));
            return requestedModel; // some gateways serve unlisted models: the streamed request still tells
        }
        results.add(DoctorCheck.Result.pass("model", "'" + requestedModel + "' is served"));
        return requestedModel;
    }

    private void checkStreamAndUsage(URI chat, String model) {
        RequestRecord record;
        ClientConfig config = ClientConfig.builder(chat, model).apiKey(Secret.of(apiKey)).maxConnections(1)
                .connectTimeout(TIMEOUT).idleTimeout(TIMEOUT).ioThreads(1).workerThreads(1).build();
        try (ChatCompletionsClient client = new ChatCompletionsClient(config)) {
            record = client.send(new RequestSpec(0, "Say hello.", 0, 16)).completion()
                    .get(TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (ExecutionException | TimeoutException e) {
            results.add(DoctorCheck.Result.fail("streaming", "no answer to one streamed request: " + e,
                    "check the server's logs"));
            return;
        }
        if (!record.succeeded()) {
            results.add(DoctorCheck.Result.fail("streaming", record.failure().kind() + " "
                    + record.failure().code() + ": " + abbreviate(record.failure().message()), streamFix(record)));
            return;
        }
        results.add(DoctorCheck.Result.pass("streaming", record.dataEventCount() + " SSE events, first content after "
                + Math.round(record.ttftNanos() / 1e6) + " ms, finish_reason " + record.finishReason()));
        if (record.usageCompletionTokens() == null) {
            results.add(DoctorCheck.Result.fail("usage", "no usage chunk with stream_options.include_usage",
                    "server token counts will be missing; run the benchmark with --no-stream-usage if the server "
                            + "rejects stream_options"));
        } else {
            results.add(DoctorCheck.Result.pass("usage", "usage reported (" + record.usageCompletionTokens()
                    + " completion tokens)"));
        }
    }

    private static String streamFix(RequestRecord record) {
        FailureKind kind = record.failure().kind();
        int code = record.failure().code();
        return switch (kind) {
            case HTTP_STATUS -> code == 401 || code == 403 ? "export the right OPENAI_API_KEY"
                    : code == 404 ? "the model id is probably wrong: use an id /models lists"
                    : "check the server's logs for HTTP " + code;
            case ERROR_IN_STREAM -> "the server answered 200 with an error object (usually a wrong model id)";
            case MALFORMED_EVENT, MISSING_DONE -> "the stream is not OpenAI SSE: every event must be "
                    + "'data: {json}' with 'choices', ending with 'data: [DONE]'";
            case CONNECT_FAILED, CONNECTION_CLOSED -> "check the URL, proxies and the server's logs";
            case IDLE_TIMEOUT, REQUEST_TIMEOUT -> "the server did not answer in time: check its load and logs";
            default -> "run with --debug and check the server's logs";
        };
    }

    private void checkTls(URI chat) {
        if (!"https".equalsIgnoreCase(chat.getScheme())) {
            results.add(DoctorCheck.Result.pass("TLS", "not used (http)"));
            return;
        }
        boolean handshakeSeen = results.stream().anyMatch(r -> r.name().equals("API key") && r.passed());
        results.add(handshakeSeen ? DoctorCheck.Result.pass("TLS", "certificate verified")
                : DoctorCheck.Result.fail("TLS", "no verified https exchange completed",
                "check the server's certificate chain and host name"));
    }

    private static URI modelsUri(URI chat) {
        String text = chat.toString();
        int at = text.lastIndexOf("chat/completions");
        return URI.create(text.substring(0, at) + "models");
    }

    private static int port(URI uri) {
        return uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    private static String stripSlash(String text) {
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }

    private static String abbreviate(String text) {
        String oneLine = text.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }
}
