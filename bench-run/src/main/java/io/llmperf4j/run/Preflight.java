package io.llmperf4j.run;

import com.hazelcast.cluster.Member;
import io.llmperf4j.distributed.ClientSpec;
import io.llmperf4j.distributed.Coordinator;
import io.llmperf4j.distributed.RequestCheck;
import io.llmperf4j.engine.client.ClientConfig;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.client.impl.Redactor;
import io.llmperf4j.engine.client.impl.FailureMessages;
import io.llmperf4j.model.ErrorBodies;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.PartialAnswer;
import io.llmperf4j.model.PrintableText;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.report.summary.Redaction;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks before the run, so a configuration mistake is one clear error instead of N failed requests: one TCP connect
 * ({@link #checkReachable}), then one small request through the run's own client, with its TLS trust, headers and
 * key ({@link #checkRequest}). Only answers that no load explains stop the run: an untrusted certificate, a redirect
 * (the client follows none: {@link Redirects}), and a 4xx (but 408 and 429) or 501, printed with the server's own
 * message; a 5xx, a timeout or a broken stream may be the server's capacity, and are left for the run to measure.
 */
final class Preflight {
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    private static final long READY_POLL_MILLIS = 250;
    private static final String BASE_VARIABLES = "OPENAI_API_BASE (ANTHROPIC_API_BASE with --llm-api anthropic)";
    /** The request's prompt; one output token is asked for. */
    static final String PROMPT = "Say hello.";
    /** How long the request may take beyond its connect timeout before the check gives up (and the run starts). */
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(30);
    /** After this many seconds without an answer the check says it is waiting. */
    static final int NOTICE_SECONDS = 5;
    private static final int MESSAGE_CHARS = 300;
    private static final Pattern TLS = Pattern.compile("(?i)\\bTLS\\b|SSL|certificate|PKIX|handshake");
    /** The JDK's words for a certificate that does not name the host asked for. */
    /** What a plain-HTTP server sent to the TLS hello, as the engine quotes it. */
    private static final Pattern PLAIN_ANSWER = Pattern.compile(" sent '(.*)'\\)");
    /** The I/O error of a connection closed unanswered: "(host:port: Connection reset by peer)" or "failed: ...". */
    private static final Pattern CLOSE_DETAIL = Pattern.compile("\\([^ ()]+:\\d+: ([^()]*)\\)|failed: (.*)$");
    /** A message that says the model asked for is not served, in the words of the servers of the field. */
    private static final Pattern MODEL_UNKNOWN = Pattern.compile("(?i)model\\b.{0,120}?(does not exist|doesn't exist"
            + "|not found|is not served)|(unknown|invalid|unsupported) model|model_not_found");
    private static final Pattern HOST_MISMATCH = Pattern.compile(
            "No subject alternative (DNS )?names? matching|No name matching");

    private Preflight() {
    }

    /**
     * {@link #checkReachable}, retried while the target's {@link EndpointTarget.Remote#readyWait} lasts: a server
     * that is still starting (a model loading) refuses connections until it listens.
     */
    static void awaitReachable(URI endpoint, EndpointTarget target, PrintStream err) {
        awaitReachable(endpoint, target instanceof EndpointTarget.Remote remote ? remote.readyWait() : Duration.ZERO,
                err);
    }

    /** As above, waiting up to {@code wait} (--wait-for-server; zero: one attempt). */
    static void awaitReachable(URI endpoint, Duration wait, PrintStream err) {
        long deadline = System.nanoTime() + wait.toNanos();
        boolean told = false;
        while (true) {
            try {
                checkReachable(endpoint);
                if (told) {
                    err.println("llmperf4j: " + endpoint.getHost() + ":" + port(endpoint) + " accepts connections");
                }
                return;
            } catch (RunFailedException e) {
                if (System.nanoTime() >= deadline) {
                    throw wait.isZero() ? e : new RunFailedException(e.getMessage() + "; waited "
                            + wait.toSeconds() + " s (--wait-for-server)");
                }
                if (!told) {
                    err.println("llmperf4j: waiting up to " + wait.toSeconds() + " s for " + endpoint.getHost() + ":"
                            + port(endpoint) + " to accept connections");
                    told = true;
                }
            }
            try {
                Thread.sleep(READY_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RunFailedException("interrupted while waiting for " + endpoint.getHost() + ":"
                        + port(endpoint));
            }
        }
    }

    static void checkReachable(URI endpoint) {
        String host = endpoint.getHost();
        int port = port(endpoint);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
        } catch (UnknownHostException e) {
            throw new RunFailedException("cannot reach " + host + ":" + port + ": unknown host; check " + BASE_VARIABLES);
        } catch (IOException e) {
            throw new RunFailedException("cannot reach " + host + ":" + port + " (" + e.getMessage()
                    + "); check " + BASE_VARIABLES + " and that the server is running (try: curl <base>/models)");
        }
    }

    /**
     * Sends one request of one output token for {@code config}'s model with a client of {@code config} (the run's
     * own settings, one connection), waiting at most {@link #answerWait}; a line on {@code err} after
     * {@value #NOTICE_SECONDS} s without an answer, and one when the check gives up (the run then starts: a slow
     * server is the run's to measure).
     *
     * @param keyVariable the environment variable the API key comes from, for the hint
     * @param runTimeout  the run's --timeout: the check never waits longer than the run it precedes
     * @throws RunFailedException when the server's certificate is not trusted, or the server refuses the request
     *                            with a status that says the configuration is wrong
     */
    static void checkRequest(ClientConfig config, LlmApi api, String apiKey, String keyVariable, Duration runTimeout,
                             PrintStream err) {
        checkRequest(config, api, apiKey, keyVariable, runTimeout, err, Duration.ofSeconds(NOTICE_SECONDS));
    }

    /** As above, the waiting line printed after {@code noticeAfter} (tests shorten it). */
    static void checkRequest(ClientConfig config, LlmApi api, String apiKey, String keyVariable, Duration runTimeout,
                             PrintStream err, Duration noticeAfter) {
        Wait wait = answerWait(config, runTimeout);
        String where = Redaction.endpoint(config.endpoint().toString());
        RequestRecord record;
        try (NettyLlmClient client = new NettyLlmClient(config, api)) {
            RequestHandle handle = client.send(new RequestSpec(0, PROMPT, 0, 1));
            long start = System.nanoTime();
            try {
                if (noticeAfter.compareTo(wait.limit()) < 0) {
                    try {
                        record = handle.completion().get(noticeAfter.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        err.println(waiting(where, noticeAfter, wait, handle));
                        long left = wait.limit().toNanos() - (System.nanoTime() - start);
                        record = handle.completion().get(Math.max(left, 0), TimeUnit.NANOSECONDS);
                    }
                } else {
                    record = handle.completion().get(wait.limit().toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (TimeoutException e) {
                handle.cancel();
                err.println(gaveUp(where, wait, cancelled(handle)));
                return; // a slow server: the run will measure it
            } catch (ExecutionException e) {
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        if (!record.succeeded() && (record.failure().kind() == FailureKind.IDLE_TIMEOUT
                || record.failure().kind() == FailureKind.REQUEST_TIMEOUT)) {
            err.println(gaveUp(where, wait, record)); // the client's own limit came first
            return;
        }
        if (!record.succeeded() && Redirects.is(record.failure())) {
            // every request of the run would be redirected, and the client follows none: name where it points
            throw new RunFailedException(Redirects.problem(config.endpoint(), "the pre-run request", record.failure()));
        }
        String problem = configurationProblem(record, config.endpoint(), config.model(), apiKey, keyVariable);
        if (problem == null) return;
        URI models = wrongModel(record.failure(), config.endpoint()) ? ServedModels.modelsUri(config.endpoint(), api)
                : null;
        if (models != null) {
            // one more request, only for this refusal: the ids the server serves are the fix a mistyped model needs
            problem = configurationProblem(record.failure(), config.endpoint(), config.model(), apiKey, keyVariable,
                    ServedModels.describe(models, config, api, wait.limit()));
        }
        throw new RunFailedException(problem);
    }

    /**
     * Whether {@code failure} may be a model the server does not serve: a 404 (vLLM's "The model `x` does not
     * exist.", OpenAI's, Ollama's "model \"x\" not found"), or a 400 or 422 whose message says so (SGLang, TGI,
     * llama.cpp's router, LiteLLM's "Invalid model name"). Not a 404 of a base ending in /completions: its hint
     * already names the fix, and its /models would be as wrong.
     */
    static boolean wrongModel(Failure failure, URI endpoint) {
        if (failure == null || failure.kind() != FailureKind.HTTP_STATUS) return false;
        if (failure.code() == 404) return !endpoint.getPath().contains("/completions/chat/completions");
        return (failure.code() == 400 || failure.code() == 422) && failure.message() != null
                && MODEL_UNKNOWN.matcher(failure.message()).find();
    }

    /**
     * The check of a distributed run: every worker sends the request of {@link #checkRequest} through the client it
     * would build for its share ({@code client} with its own key, one connection), at once; the answers are judged
     * by {@link #configurationProblem} as this machine's would be. A worker without a key for the API is reported
     * without sending; a worker with no answer in time prints the single-machine line, saying what came of it
     * ({@link RequestCheck#partialAnswer()}, as {@link #gaveUp(String, Wait, PartialAnswer)} words this machine's), and
     * is left to the run.
     *
     * @param config      this machine's client for the check (the same model, params and timeouts): it gives the
     *                    wait and the endpoint named in messages; its key sends nothing but, when a worker's answer
     *                    says the model is not served, the one GET of the served ids ({@link #servedAsSeenHere})
     * @param keyVariable the variable each worker reads its key from, e.g. OPENAI_API_KEY
     * @throws RunFailedException naming every worker whose check failed, and its problem
     */
    static void checkWorkers(Coordinator coordinator, List<Member> workers, ClientSpec client, ClientConfig config,
                             String keyVariable, Duration runTimeout, PrintStream err) {
        Wait wait = answerWait(config, runTimeout);
        String where = Redaction.endpoint(config.endpoint().toString());
        ClientSpec one = client.withModel(config.model()).withSamplingParams(checkParams(client.samplingParams()))
                .withMaxConnections(1);
        Map<String, RequestCheck> answers = coordinator.checkRequests(workers, one, PROMPT, wait.limit(),
                // the workers' answers come whole at the end: what a late one has had so far is not known here
                Duration.ofSeconds(NOTICE_SECONDS), late -> err.println("llmperf4j: pre-run check: no complete answer "
                        + "from " + where + " yet for worker" + (late.size() == 1 ? " " : "s ")
                        + String.join(", ", late)
                        + " after " + NOTICE_SECONDS + " s; waiting up to " + seconds(wait.limit()) + " ("
                        + wait.bound() + ")"));
        List<String> problems = new ArrayList<>();
        boolean keys = false;
        String served = null; // what the server lists, asked once for every worker's wrong model
        for (Map.Entry<String, RequestCheck> e : answers.entrySet()) {
            RequestCheck check = e.getValue();
            String problem;
            if (check.key() != RequestCheck.KeyState.SET) {
                problem = EndpointTarget.keyProblem(keyVariable, check.key() == RequestCheck.KeyState.UNSET ? null
                        : "") + " on that worker, so it sent nothing";
                keys = true;
            } else if (!check.answered() || check.failure() != null
                    && (check.failure().kind() == FailureKind.IDLE_TIMEOUT
                    || check.failure().kind() == FailureKind.REQUEST_TIMEOUT)) {
                err.println(gaveUp(where + " (worker " + e.getKey() + ")", wait, check.partialAnswer()));
                continue;
            } else {
                if (served == null && wrongModel(check.failure(), config.endpoint())) {
                    served = servedAsSeenHere(client.api(), config, wait);
                }
                problem = check.failure() == null ? null : configurationProblem(check.failure(), config.endpoint(),
                        config.model(), null, "that worker's " + keyVariable,
                        wrongModel(check.failure(), config.endpoint()) && !served.isEmpty() ? served : null);
                if (problem == null) continue;
                int status = check.failure().kind() == FailureKind.HTTP_STATUS ? check.failure().code() : 0;
                keys |= status == 401 || status == 403;
            }
            problems.add("worker " + e.getKey() + ": " + problem);
        }
        if (problems.isEmpty()) return;
        throw new RunFailedException("the pre-run check failed on " + problems.size() + " of " + answers.size()
                + " worker" + (answers.size() == 1 ? "" : "s") + ": " + String.join("; ", problems)
                + (keys ? "; each worker sends the key in its own " + keyVariable + " (keys never cross the "
                + "cluster; " + EndpointTarget.keyFix(keyVariable) + ")" : ""));
    }

    /**
     * For a worker's refusal of a wrong --model, the ids the server serves as this machine's pre-run check names
     * them ({@link ServedModels}), asked from the coordinator with its own key (keys never cross the cluster): "the
     * server serves: a, b". Empty when this machine cannot list them (no key here, or the endpoint is out of its
     * reach): the workers' line then keeps its hint to GET the list, rather than an error of the coordinator's.
     */
    private static String servedAsSeenHere(LlmApi api, ClientConfig config, Wait wait) {
        URI models = ServedModels.modelsUri(config.endpoint(), api);
        if (models == null) return "";
        String served = ServedModels.describe(models, config, api, wait.limit());
        return served.startsWith("(") ? "" : served;
    }

    /**
     * The line after {@code after} with the answer still in flight, saying what has come of it so far (the handle
     * counts its events and knows its headers as they come): "no answer" only when nothing has.
     */
    static String waiting(String where, Duration after, Wait wait, RequestHandle handle) {
        String sofar = "no answer from " + where;
        int events = handle.eventsDecoded();
        if (events > 0) {
            sofar = where + " answered 200 and " + events + " event" + (events == 1 ? "" : "s")
                    + " but has not finished";
        } else if (handle.headersReceived()) {
            sofar = where + " answered with its status and headers but no event yet";
        }
        return "llmperf4j: pre-run check: " + sofar + " after " + seconds(after) + "; waiting up to "
                + seconds(wait.limit()) + " (" + wait.bound() + ")";
    }

    /** How long the check waits for its answer, and which option sets that. */
    record Wait(Duration limit, String bound) {
    }

    /**
     * The smallest of the run's --timeout, the client's --idle-timeout (and --request-timeout when set), and
     * --connect-timeout plus {@link #ANSWER_WAIT}.
     */
    static Wait answerWait(ClientConfig config, Duration runTimeout) {
        Wait wait = new Wait(config.connectTimeout().plus(ANSWER_WAIT),
                "--connect-timeout + " + ANSWER_WAIT.toSeconds() + " s");
        if (config.idleTimeout() != null && config.idleTimeout().compareTo(wait.limit()) <= 0) {
            wait = new Wait(config.idleTimeout(), "--idle-timeout");
        }
        if (config.requestTimeout() != null && config.requestTimeout().compareTo(wait.limit()) <= 0) {
            wait = new Wait(config.requestTimeout(), "--request-timeout");
        }
        if (runTimeout != null && runTimeout.compareTo(wait.limit()) <= 0) {
            wait = new Wait(runTimeout, "--timeout");
        }
        return wait;
    }

    private static String gaveUp(String where, Wait wait) {
        return "llmperf4j: pre-run check: no answer from " + where + " in " + seconds(wait.limit()) + " ("
                + wait.bound() + "); starting the run anyway (a slow server is the run's to measure). If the server "
                + "never answers, check its logs and that the model is loaded (llmperf4j doctor checks step by step); "
                + "for a slow first answer, raise " + wait.bound().split(" ")[0];
    }

    /**
     * As {@link #gaveUp(String, Wait)}, saying what came of the answer before the check gave up ({@code record}, the
     * cancelled or timed-out request's, null when it is not at hand): a server that answered and then stalled is a
     * stalled engine, which "no answer" and "that the model is loaded" would send the user away from (QA s44: 200
     * and 2 tokens, then silence, read "no answer").
     */
    static String gaveUp(String where, Wait wait, RequestRecord record) {
        return gaveUp(where, wait, PartialAnswer.of(record));
    }

    /** As above from what came ({@code answer}; null: nothing), a worker's as this machine's. */
    static String gaveUp(String where, Wait wait, PartialAnswer answer) {
        if (answer == null) return gaveUp(where, wait);
        String option = wait.bound().split(" ")[0];
        String gaveUp = "; the check gave up at " + seconds(wait.limit()) + " (" + wait.bound() + ") and the run "
                + "starts anyway (a slow server is the run's to measure). ";
        if (answer.contentEvents() > 0) {
            return "llmperf4j: pre-run check: " + where + " " + answer.words() + gaveUp
                    + "A stream that stops part-way is a stalled server, not a model still loading: check its logs "
                    + "(llmperf4j doctor checks step by step); for a slow answer, raise " + option;
        }
        return "llmperf4j: pre-run check: " + where + " " + answer.words() + gaveUp + "It accepted the request but "
                + "generated nothing: check its logs for a stalled or overloaded engine (llmperf4j doctor checks step "
                + "by step); for a slow first token (a long prompt, a queue, a long reasoning), raise " + option;
    }

    /** The record of a request just cancelled, null when it does not complete within a second. */
    private static RequestRecord cancelled(RequestHandle handle) {
        try {
            return handle.completion().get(1, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String seconds(Duration duration) {
        return PartialAnswer.seconds(duration);
    }

    /**
     * The run's additional sampling params for the check's one request: all but {@code max_tokens}, so the check's
     * one token wins over a --additional-sampling-params max_tokens and the rest of the body is the run's.
     */
    static Map<String, Object> checkParams(Map<String, Object> samplingParams) {
        if (samplingParams == null || !samplingParams.containsKey("max_tokens")) return samplingParams;
        Map<String, Object> params = new LinkedHashMap<>(samplingParams);
        params.remove("max_tokens");
        return params;
    }

    /**
     * Why {@code record}, the answer to the check's request, means the run cannot work, or null when it may. The
     * server's message is kept, with {@code apiKey} and anything key-shaped redacted.
     */
    static String configurationProblem(RequestRecord record, URI endpoint, String model, String apiKey,
                                       String keyVariable) {
        return record.succeeded() ? null : configurationProblem(record.failure(), endpoint, model, apiKey,
                keyVariable);
    }

    /** As above for the failure of the check's request (a worker's answer carries only that). */
    static String configurationProblem(Failure failure, URI endpoint, String model, String apiKey,
                                       String keyVariable) {
        return configurationProblem(failure, endpoint, model, apiKey, keyVariable, null);
    }

    /**
     * As above, a refused request's line carrying {@code served} after the server's message: what
     * {@link ServedModels#describe} found the server serves (or why it could not tell); null: nothing.
     */
    static String configurationProblem(Failure failure, URI endpoint, String model, String apiKey,
                                       String keyVariable, String served) {
        String message = message(failure.message(), apiKey, failure.kind() == FailureKind.HTTP_STATUS);
        String where = endpoint.getHost() + ":" + port(endpoint);
        boolean https = "https".equalsIgnoreCase(endpoint.getScheme());
        if (failure.kind() == FailureKind.CONNECT_FAILED
                && failure.message().contains(FailureMessages.PLAIN_HTTP_ANSWER)) {
            // an http:// port asked for TLS: no certificate would help
            Matcher sent = PLAIN_ANSWER.matcher(failure.message());
            return "the server at " + where + " answered in plain HTTP, not TLS" + (sent.find() ? " ('"
                    + sent.group(1) + "')" : "") + ": use http:// instead of https:// in " + BASE_VARIABLES;
        }
        if (failure.kind() == FailureKind.CLIENT_ERROR && failure.message().startsWith(FailureMessages.TLS_ANSWER)) {
            return "the server at " + where + " answered in TLS, not plain HTTP: use https:// instead of http:// in "
                    + BASE_VARIABLES;
        }
        if (failure.kind() == FailureKind.CONNECTION_CLOSED
                && FailureMessages.closedWithoutAnswer(failure.message())) {
            // one request on a new connection, closed or reset unanswered: no load explains it; a TLS port does it
            Matcher detail = CLOSE_DETAIL.matcher(failure.message());
            String why = detail.find() ? detail.group(1) != null ? detail.group(1) : detail.group(2) : null;
            return "the server closed the connection without answering the pre-run request (" + where
                    + (why == null ? "" : ": " + why) + "); " + (https ? "check the server's logs and any proxy "
                    + "in between" : "if that port serves TLS, use https:// in " + BASE_VARIABLES);
        }
        if (failure.kind() == FailureKind.CONNECT_FAILED && HOST_MISMATCH.matcher(failure.message()).find()) {
            // a trusted certificate for another name: another CA would not help
            return "the TLS connection to " + where + " failed before the run: " + message + "; the server's "
                    + "certificate does not name " + endpoint.getHost() + ": use a host name the certificate lists "
                    + "in the base URL (e.g. localhost instead of 127.0.0.1), or --insecure for testing only";
        }
        if (failure.kind() == FailureKind.CONNECT_FAILED && TLS.matcher(failure.message()).find()) {
            return "the TLS connection to " + where + " failed before the run: " + message + "; if the server's "
                    + "certificate is self-signed or from a private CA, pass that CA with --ca-cert FILE (or "
                    + "--insecure to trust any certificate, for testing only)";
        }
        if (failure.kind() == FailureKind.CLIENT_ERROR && failure.message().startsWith("expected an event stream")) {
            // a proxy's login page, an HTML error page, a JSON answer to a streamed request: no load explains it
            return "the server at " + where + " answered the pre-run request with something other than an event "
                    + "stream: " + message + "; check " + BASE_VARIABLES + " and any proxy in between";
        }
        if (failure.kind() != FailureKind.HTTP_STATUS) return null;
        int status = failure.code();
        if (Redirects.is(failure)) return Redirects.problem(endpoint, "the pre-run request", failure); // a worker's answer too
        boolean refused = (status >= 400 && status < 500 && status != 408 && status != 429) || status == 501;
        if (!refused) return null;
        String hint = switch (status) {
            case 401, 403 -> "check the API key in " + keyVariable;
            case 404 -> endpoint.getPath().contains("/completions/chat/completions") ? "the base URL ends in /completions, so the "
                    + "request went to " + Redaction.endpoint(endpoint.toString()) + ": set " + BASE_VARIABLES.split(" ")[0]
                    + " to the API base (ending in /v1), and pass --llm-api openai-completions for the text "
                    + "completions API"
                    : "check --model '" + model + "'" + (served == null ? " (GET <base>/models lists the served ids)"
                    : "") + " and that the base URL "
                    + "ends in /v1 (the request went to " + Redaction.endpoint(endpoint.toString()) + ")";
            case 405, 501 -> "the server at " + where + " does not serve this API at "
                    + Redaction.endpoint(endpoint.toString()) + ": is " + BASE_VARIABLES.split(" ")[0]
                    + " an LLM API's base URL, and --llm-api the right API?";
            default -> "check --model, --additional-sampling-params and the request options";
        };
        // the server's sentence loses its full stop before ours (QA: "...does not exist.; check --model"); a message
        // cut short keeps its "..." (it says the server's text goes on)
        String said = message.endsWith("...") ? message : message.replaceAll("[.;,:]+$", "");
        if (served != null) said += served.startsWith("(") ? " " + served : "; " + served;
        return "the server refused the pre-run request (one request of one token) with HTTP " + status + ": "
                + said + "; " + hint;
    }

    /**
     * A failure's message on one line, redacted: a response body as {@link ErrorBodies#oneLine} shortens it (a page
     * without markup, {@value ErrorBodies#BODY_CHARS} characters), the client's own words at most
     * {@value #MESSAGE_CHARS}.
     */
    private static String message(String text, String apiKey, boolean responseBody) {
        String message = text == null ? "" : text;
        // the engine's rule (the key, or any part of it, escaped or not), then anything key-shaped
        message = Redaction.secrets(new Redactor(Secret.of(apiKey), Map.of()).redact(message));
        if (responseBody) {
            message = ErrorBodies.oneLine(message, MESSAGE_CHARS);
        } else {
            // a stream's error event is the server's text too: an ESC or a NUL in it must not act on the console
            message = message.replaceAll("\\s+", " ").strip();
            if (message.length() > MESSAGE_CHARS) message = message.substring(0, MESSAGE_CHARS) + "...";
            message = PrintableText.of(message);
        }
        return message.isEmpty() ? "(no message)" : message;
    }

    private static int port(URI endpoint) {
        return endpoint.getPort() > 0 ? endpoint.getPort() : "https".equalsIgnoreCase(endpoint.getScheme()) ? 443 : 80;
    }
}
