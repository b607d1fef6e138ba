package io.llmperf4j.run;

import io.llmperf4j.servermetrics.engines.ServerEngine;
import io.llmperf4j.servermetrics.scrape.MetricsProbe;
import io.llmperf4j.servermetrics.scrape.ProbeResult;
import io.llmperf4j.servermetrics.scrape.ServerMetricsConfig;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.ConnectionMode;
import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.PrintableText;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the doctor checks in order for one {@link LlmApi}; a check that cannot run because an earlier one failed is
 * reported as failed with the reason. The API key is sent (in the API's own header: Authorization: Bearer, or
 * x-api-key with anthropic-version) but never printed. TLS trust and extra headers are a run's
 * ({@link EndpointAccess}), so a private-CA or gateway endpoint is checked the way a run reaches it.
 */
public final class Doctor {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The run's connection flags, as token-benchmark takes them: --connect-timeout, --idle-timeout,
     * --request-timeout (null: no limit), --wait-for-server and --connection-mode. Each answer is awaited as long as
     * the run's pre-run check waits ({@link Preflight#answerWait}: the least of the idle and request timeouts and
     * the connect timeout plus 30 s).
     */
    public record Connection(Duration connectTimeout, Duration idleTimeout, Duration requestTimeout,
                             Duration waitForServer, ConnectionMode mode) {
        /** Doctor's limits before it took the run's flags: 15 s to connect, 15 s without a byte. */
        public static final Connection DEFAULT = new Connection(Duration.ofSeconds(15), Duration.ofSeconds(15), null,
                Duration.ZERO, ClientConfig.DEFAULT_CONNECTION_MODE);

        public Connection {
            waitForServer = waitForServer == null ? Duration.ZERO : waitForServer;
            mode = mode == null ? ClientConfig.DEFAULT_CONNECTION_MODE : mode;
        }
    }

    private final LlmApi api;
    private final String base;
    private final String apiKey;
    private final String requestedModel;
    private final EndpointAccess access;
    private final Connection connection;
    /** Where a --wait-for-server wait is told. */
    private final PrintStream err;
    /** Where the key came from, for the fixes: the key variable or --api-key-file FILE. */
    private final String keySource;
    private final String baseVariable;
    private final String keyVariable;
    /** What the API appends to the base, e.g. "chat/completions" or "messages". */
    private final String suffix;
    private final List<DoctorCheck.Result> results = new ArrayList<>();
    /** Why the key cannot be used (unset or empty), or null. */
    private final String keyProblem;
    /** Whether /models answered at all (over https: a verified handshake). */
    private boolean modelsAnswered;
    /** The fix when /models showed the base's scheme is the wrong one for its port, else null. */
    private String wrongScheme;

    /** @param apiKey the key variable's value, null when it is unset */
    public Doctor(LlmApi api, String base, String apiKey, String requestedModel) {
        this(api, base, apiKey, null, requestedModel, EndpointAccess.DEFAULT);
    }

    /** With doctor's own connection limits ({@link Connection#DEFAULT}). */
    public Doctor(LlmApi api, String base, String apiKey, String keySource, String requestedModel,
                  EndpointAccess access) {
        this(api, base, apiKey, keySource, requestedModel, access, Connection.DEFAULT, System.err);
    }

    /**
     * @param apiKey    the key, null when it is unset
     * @param keySource where the key came from when not from the API's key variable (e.g. "--api-key-file F"),
     *                  else null
     */
    public Doctor(LlmApi api, String base, String apiKey, String keySource, String requestedModel,
                  EndpointAccess access, Connection connection, PrintStream err) {
        this.api = api;
        this.access = access;
        this.connection = connection;
        this.err = err;
        this.base = base;
        this.apiKey = apiKey == null ? "" : apiKey;
        this.requestedModel = requestedModel;
        this.baseVariable = CommonSettings.registered(api.name()).baseVariable();
        this.keyVariable = CommonSettings.registered(api.name()).keyVariable();
        this.keySource = keySource == null ? keyVariable : keySource;
        this.keyProblem = EndpointTarget.keyProblem(this.keySource, apiKey);
        this.suffix = EndpointUrls.suffix(api);
    }

    public List<DoctorCheck.Result> run() {
        URI endpoint = checkUrlShape();
        if (endpoint == null || !checkReachable(endpoint)) {
            return results;
        }
        if (keyProblem != null) {
            // as token-benchmark, which refuses to run without a key (exit 2); the other checks still run
            results.add(DoctorCheck.Result.fail("API key", keyProblem + ": token-benchmark refuses to run without it",
                    "export " + keyVariable + " (" + EndpointTarget.keyFix(keyVariable) + "), or pass "
                            + "token-benchmark --api-key-file FILE"));
        }
        String model = checkKeyAndModel(modelsUri(endpoint));
        if (model != null) {
            checkRequestAndUsage(endpoint, model);
        }
        checkTls(endpoint);
        checkServerMetrics(endpoint);
        return results;
    }

    /**
     * Whether the server serves Prometheus metrics at its origin's {@code /metrics} (what token-benchmark scrapes by
     * default): never a failure, since a run goes on without them.
     */
    private void checkServerMetrics(URI endpoint) {
        ServerMetricsConfig config;
        try {
            config = ServerMetricsSession.scrapeConfig(endpoint, api, apiKey, access);
        } catch (IOException e) {
            results.add(DoctorCheck.Result.info("server metrics", "not checked: " + e.getMessage(),
                    "check the --ca-cert file"));
            return;
        }
        ProbeResult probe = MetricsProbe.probe(config);
        if (probe.ok()) {
            results.add(DoctorCheck.Result.pass("server metrics", probe.url() + " answers with " + probe.families()
                    + " families (" + engineName(probe.engine()) + ")"));
        } else {
            results.add(DoctorCheck.Result.info("server metrics", "not served at " + probe.url() + " ("
                    + probe.detail() + ")", "runs go on without the server's side; vLLM, SGLang (--enable-metrics) "
                    + "and TGI serve /metrics; another URL: token-benchmark --server-metrics URL"));
        }
    }

    private static String engineName(ServerEngine engine) {
        if (engine == null) return "no vLLM, SGLang, TGI or llama.cpp names";
        return switch (engine) {
            case VLLM -> "vLLM";
            case SGLANG -> "SGLang";
            case TGI -> "TGI";
            case LLAMACPP -> "llama.cpp";
        };
    }

    private URI checkUrlShape() {
        URI endpoint;
        try {
            endpoint = api.endpoint(base);
        } catch (IllegalArgumentException e) {
            results.add(DoctorCheck.Result.fail("base URL", e.getMessage(),
                    "set " + baseVariable + " to the API base, e.g. http://localhost:8000/v1"));
            return null;
        }
        String path = URI.create(base.endsWith("/") ? base : base + "/").getPath();
        if (path.contains(suffix + "/" + suffix)) {
            results.add(DoctorCheck.Result.fail("base URL", "'/" + suffix + "' appears twice in " + endpoint,
                    "set " + baseVariable + " to the base only, e.g. http://localhost:8000/v1"));
            return null;
        }
        if (!endpoint.getPath().contains("/v1/")) {
            results.add(DoctorCheck.Result.fail("base URL", "requests would go to " + endpoint + " (no /v1)",
                    "most OpenAI-compatible servers serve under /v1: try " + stripSlash(base) + "/v1"));
            return endpoint;
        }
        results.add(DoctorCheck.Result.pass("base URL", "requests go to " + endpoint));
        return endpoint;
    }

    private boolean checkReachable(URI endpoint) {
        try {
            Preflight.awaitReachable(endpoint, connection.waitForServer(), err);
            results.add(DoctorCheck.Result.pass("reachable", endpoint.getHost() + ":" + port(endpoint)
                    + " accepts connections"));
            return true;
        } catch (RunFailedException e) {
            results.add(DoctorCheck.Result.fail("reachable", e.getMessage(),
                    "check host and port in " + baseVariable + " and that the server is running (curl "
                            + stripSlash(base) + "/models)"));
            return false;
        }
    }

    /** GET /models: the key is accepted and the model is served. Returns the model to use, or null. */
    private String checkKeyAndModel(URI models) {
        HttpResponse<String> response;
        try {
            response = ServedModels.get(models, connection.connectTimeout(), access.sslContext(),
                    api.headers(Secret.of(apiKey)), access.headers(), answerWait());
        } catch (IOException | IllegalArgumentException e) {
            wrongScheme = wrongScheme(models, e);
            results.add(DoctorCheck.Result.fail("API key", "GET " + models + " failed: " + PrintableText.of(String.valueOf(
                    e.getMessage())),
                    wrongScheme != null ? wrongScheme : "check the URL and, for https, the server's certificate (a "
                            + "private CA: --ca-cert FILE)"));
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
        modelsAnswered = true;
        int status = response.statusCode();
        if ((status == 401 || status == 403) && keyProblem != null) {
            return null; // the missing key is already reported
        }
        if (status == 401 || status == 403) {
            results.add(DoctorCheck.Result.fail("API key", "GET " + models + " answered HTTP " + status,
                    rightKey() + " (no spaces or quotes; a server started with its own "
                            + "--api-key needs that key; OAuth-style tokens may have expired)"));
            return null;
        }
        if (status >= 300 && status < 400) {
            results.add(DoctorCheck.Result.fail("API key", Redirects.problem(models, status,
                    response.headers().firstValue("location").orElse(null), apiKey, access.headers(), "models",
                    baseVariable),
                    "set " + baseVariable + " to the URL the server answers at: a run follows no redirect either"));
            return null;
        }
        if (status != 200) {
            results.add(DoctorCheck.Result.fail("API key", "GET " + models + " answered HTTP " + status,
                    status == 404 && models.getPath().endsWith("/completions/models") ? "the base URL ends in "
                            + "/completions: set " + baseVariable + " to the API base (ending in /v1), and pass "
                            + "--llm-api openai-completions for the text completions API"
                            : status == 404 ? "the base URL is probably missing /v1 or has an extra path"
                            : "check the server's logs"));
            return null;
        }
        if (keyProblem == null) {
            results.add(DoctorCheck.Result.pass("API key", "GET " + models + " answered 200"));
        }
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
        // the ids as the console shows them (the server's text: PrintableText); the request sends the id as served
        List<String> shown = ids.stream().map(PrintableText::of).toList();
        if (requestedModel == null) {
            if (ids.isEmpty()) {
                results.add(DoctorCheck.Result.fail("model", "/models lists no model", "pass --model ID"));
                return null;
            }
            results.add(DoctorCheck.Result.pass("model", "using '" + shown.get(0) + "', the first of "
                    + ids.size() + " served (" + ServedModels.list(shown) + ")"));
            return ids.get(0);
        }
        if (!ids.contains(requestedModel)) {
            results.add(DoctorCheck.Result.fail("model", "'" + requestedModel + "' is not listed by /models",
                    "use one of the served model ids as --model: "
                    + ServedModels.list(shown)));
            return requestedModel; // some gateways serve unlisted models: the streamed request still tells
        }
        results.add(DoctorCheck.Result.pass("model", "'" + requestedModel + "' is served"));
        return requestedModel;
    }

    /** One request of the API (streamed, or one JSON body for embeddings), then the usage it reported. */
    private void checkRequestAndUsage(URI endpoint, String model) {
        String check = api.streaming() ? "streaming" : "request";
        RequestRecord record;
        ClientConfig config = clientConfig(endpoint, model);
        RequestSpec spec = new RequestSpec(0, "Say hello.", 0, 16);
        try (NettyLlmClient client = new NettyLlmClient(config, api)) {
            // the client's own timeouts end the request; the wait is a backstop a little beyond them
            record = client.send(spec).completion()
                    .get(answerWait().plus(connection.connectTimeout()).toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (ExecutionException | TimeoutException e) {
            results.add(DoctorCheck.Result.fail(check, "no answer to one " + (api.streaming() ? "streamed " : "")
                    + "request: " + e, "check the server's logs"));
            return;
        }
        if (!record.succeeded() && Redirects.is(record.failure())) {
            results.add(DoctorCheck.Result.fail(check, Redirects.problem(endpoint, "its " + check + " request", record.failure()), "set " + baseVariable
                    + " to the URL the server answers at: a run follows no redirect either, and its pre-run check "
                    + "stops with this"));
            return;
        }
        if (!record.succeeded()) {
            int code = record.failure().code(); // an HTTP status or a stream error's code; -1: none, not shown
            results.add(DoctorCheck.Result.fail(check, record.failure().kind() + (code > 0 ? " " + code : "") + ": "
                    + abbreviate(record.failure().message()), requestFix(record)));
            return;
        }
        if (api.streaming() && record.tags().endMarkerMissing()) {
            // a run counts it as a success, as llmperf does, and warns: the same here
            results.add(DoctorCheck.Result.warn(check, record.dataEventCount() + " SSE events, finish_reason "
                    + PrintableText.of(record.finishReason()) + ", but the stream ended without '" + api.endOfStreamName() + "'",
                    "a run counts such a stream as complete, as llmperf does, and warns END_MARKER_MISSING; a "
                            + "response cut short without a finish reason would be an error"));
        } else if (api.streaming()) {
            results.add(DoctorCheck.Result.pass(check, record.dataEventCount() + " SSE events, first content after "
                    + Math.round(record.ttftNanos() / 1e6) + " ms" + firstContentSplit(record) + ", finish_reason "
                    + PrintableText.of(record.finishReason())));
        } else {
            results.add(DoctorCheck.Result.pass(check, "POST " + endpoint + " answered in "
                    + Math.round(record.e2eNanos() / 1e6) + " ms"));
        }
        checkUsage(record);
    }

    /**
     * Where the check's TTFT went: a new client's first request, its connect included, is not a run's TTFT (a run
     * warms its client and opens its connections before the clock), so the time until the request was written is
     * told apart from the server's part after it (QA: "first content after 331 ms" for a server answering in 70).
     */
    static String firstContentSplit(RequestRecord record) {
        long written = record.phases().requestWrittenNanos();
        if (written < 0 || written > record.ttftNanos()) return "";
        return " (" + Math.round(written / 1e6) + " ms of it a new client's first request"
                + (record.connectNanos() >= 0 ? " and its connect" : "") + ", until the request was written; the "
                + "first content " + Math.round((record.ttftNanos() - written) / 1e6) + " ms after that)";
    }

    /**
     * Whether the server reported usage. llmperf never reads it, and a run counts tokens with its tokenizer by
     * default, so a server without usage is a warning, never a failure.
     */
    private void checkUsage(RequestRecord record) {
        if (!CommonSettings.registered(api.name()).generates()) { // embeddings: input tokens only
            if (record.usagePromptTokens() == null) {
                results.add(DoctorCheck.Result.warn("usage", "no usage.prompt_tokens in the response",
                        "a run works; input tokens/s then counts the workload's sampled lengths instead of the "
                                + "server's"));
            } else {
                results.add(DoctorCheck.Result.pass("usage", "usage reported (" + record.usagePromptTokens()
                        + " prompt tokens)"));
            }
        } else if (record.usageCompletionTokens() == null) {
            boolean streamOption = CommonSettings.registered(api.name()).streamUsage() && api.streaming();
            results.add(DoctorCheck.Result.warn("usage", streamOption
                            ? "no usage chunk with stream_options.include_usage" : "no usage in the response",
                    "a run works (llmperf never reads usage): output tokens are then counted by the client's "
                            + "tokenizer and input tokens are the workload's count (the defaults, as llmperf), and "
                            + "--tokenizer server is impossible against this server"));
        } else {
            results.add(DoctorCheck.Result.pass("usage", "usage reported (" + record.usageCompletionTokens()
                    + " completion tokens)"));
        }
    }

    private String requestFix(RequestRecord record) {
        FailureKind kind = record.failure().kind();
        int code = record.failure().code();
        return switch (kind) {
            case HTTP_STATUS -> code == 401 || code == 403 ? rightKey()
                    : code == 404 ? "the model id or the path is probably wrong: use an id /models lists, and "
                    + "check that the server serves /" + suffix + " under " + baseVariable
                    : "check the server's logs for HTTP " + code;
            case ERROR_IN_STREAM -> "the server answered 200 with an error object (usually a wrong model id)";
            case MALFORMED_EVENT, MISSING_DONE -> formatFix();
            case CONNECT_FAILED, CONNECTION_CLOSED -> "check the URL, proxies and the server's logs";
            case IDLE_TIMEOUT, REQUEST_TIMEOUT -> "the server did not answer in time: check its load and logs";
            default -> "run with --debug and check the server's logs";
        };
    }

    /** The client of a run with these connection flags, for one request. */
    private ClientConfig clientConfig(URI endpoint, String model) {
        return ClientConfig.builder(endpoint, model).apiKey(Secret.of(apiKey)).maxConnections(1)
                .connectTimeout(connection.connectTimeout()).idleTimeout(connection.idleTimeout())
                .requestTimeout(connection.requestTimeout()).connectionMode(connection.mode())
                .ioThreads(1).workerThreads(1).extraHeaders(access.headers()).trustedCertificatesPem(access.caCert())
                .insecureTls(access.insecure()).build();
    }

    /** How long an answer is awaited: as the run's pre-run check waits with these flags. */
    private Duration answerWait() {
        return Preflight.answerWait(ClientConfig.builder(URI.create("http://localhost/"), "m")
                .connectTimeout(connection.connectTimeout()).idleTimeout(connection.idleTimeout())
                .requestTimeout(connection.requestTimeout()).build(), null).limit();
    }

    private String rightKey() {
        return keySource.equals(keyVariable) ? "export the right " + keyVariable : "put the right key in " + keySource;
    }

    /** What a well-formed answer of this API looks like. */
    private String formatFix() {
        ApiRegistry.Api entry = CommonSettings.registered(api.name());
        if (!api.streaming()) {
            return "the body is not " + entry.bodyShape();
        }
        return "the stream is not " + entry.streamShape() + ", ending with '" + api.endOfStreamName() + "'";
    }

    /**
     * The fix when {@code failure}, the JDK client's error for GET /models, says the scheme does not match the port:
     * an https request answered in plain text, or an http request closed unanswered (what a TLS port does); else
     * null.
     */
    private String wrongScheme(URI models, Exception failure) {
        String words = failure.toString() + (failure.getCause() == null ? "" : " " + failure.getCause());
        if ("https".equalsIgnoreCase(models.getScheme())) {
            // the JDK client may see a plain-text answer's close before its bytes: then a handshake of our own asks
            boolean closed = unanswered(failure, words) || words.contains("terminated the handshake");
            boolean plain = words.contains("plaintext connection") || words.contains("Unrecognized SSL message")
                    || (closed && PlainHttpProbe.answersInPlainText(models.getHost(), port(models),
                            connection.connectTimeout()));
            return plain ? "the server answered in plain HTTP, not TLS: use http:// in " + baseVariable : null;
        }
        if (TLS_STATUS_LINE.matcher(words).find()) {
            return "the server answered in TLS, not plain HTTP; if that port serves TLS, use https:// in "
                    + baseVariable;
        }
        return unanswered(failure, words) ? "the server closed the connection without answering; if that port "
                + "serves TLS, use https:// in " + baseVariable : null;
    }

    /** The JDK client's words for a connection closed before any answer. */
    private static boolean unanswered(Exception failure, String words) {
        return failure instanceof java.io.EOFException || words.contains("received no bytes")
                || words.toLowerCase(java.util.Locale.ROOT).contains("connection reset");
    }

    /** The JDK client's words for a TLS record (an alert) where a status line was due. */
    private static final java.util.regex.Pattern TLS_STATUS_LINE = java.util.regex.Pattern.compile(
            "Invalid status line: \"[\u0014-\u0017]");

    /** Control characters (a TLS record's bytes in a status line) as \\xNN, so the line prints cleanly. */
    private void checkTls(URI endpoint) {
        if (!"https".equalsIgnoreCase(endpoint.getScheme())) {
            if (wrongScheme != null) {
                results.add(DoctorCheck.Result.warn("TLS", "not used (http), and " + wrongScheme.substring(0,
                        wrongScheme.indexOf(';')), wrongScheme.substring(wrongScheme.indexOf("if that port"))));
            } else {
                results.add(DoctorCheck.Result.pass("TLS", "not used (http)"));
            }
            return;
        }
        if (wrongScheme != null) {
            results.add(DoctorCheck.Result.fail("TLS", "the server answered in plain HTTP, not TLS",
                    "use http:// in " + baseVariable));
            return;
        }
        if (modelsAnswered && access.insecure()) {
            results.add(DoctorCheck.Result.warn("TLS", "NOT verified (--insecure): any certificate and host name "
                    + "is accepted", "for test endpoints only; pass the server's CA with --ca-cert FILE instead"));
        } else if (modelsAnswered) {
            results.add(DoctorCheck.Result.pass("TLS", "certificate verified"
                    + (access.caCert() == null ? "" : " against --ca-cert " + access.caCert())));
        } else {
            results.add(DoctorCheck.Result.fail("TLS", "no verified https exchange completed",
                    "check the server's certificate chain and host name; a self-signed or private CA: --ca-cert "
                            + "FILE (--insecure to trust any, for testing only)"));
        }
    }

    /** The API's endpoint with its suffix replaced by "models" (OpenAI's and Anthropic's model list). */
    private URI modelsUri(URI endpoint) {
        String text = endpoint.toString();
        int at = text.lastIndexOf(suffix);
        return URI.create(text.substring(0, at) + "models");
    }

    private static int port(URI uri) {
        return uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    private static String stripSlash(String text) {
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }

    /** The server's words on one line: white space runs made one space, other controls escaped (PrintableText). */
    private static String abbreviate(String text) {
        String oneLine = PrintableText.of(text.replaceAll("\\s+", " ").strip());
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }
}
