package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.run.CommonSettings;
import io.llmperf4j.run.Doctor;
import io.llmperf4j.run.EndpointTarget;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The flags token-benchmark and correctness share, checked and turned into the run's {@link CommonSettings}: flags
 * checked, environment read, JSON and metadata parsed. Every problem is a {@link UsageException}, raised before
 * anything is started or sent.
 */
final class CommonOptions {
    private CommonOptions() {
    }

    /**
     * @param resultsDir where the files go (null: nothing is saved): {@link #resultsDir} of the flags, or a folder
     *                   the command chose
     */
    static CommonSettings resolve(CommonFlags flags, int maxNumCompletedRequests, RunConnectionFlags connection,
                                 boolean overwrite, Path resultsDir, CliContext context) {
        atLeast("--num-concurrent-requests", flags.numConcurrentRequests, 1);
        atLeast("--timeout", flags.timeoutSeconds, 1);
        atLeast("--max-num-completed-requests", maxNumCompletedRequests, 1);
        Doctor.Connection limits = connectionLimits(connection);
        EndpointAccessFlags access = connection.access;
        Map<String, String> headers = checkedHeaders(access);
        checkLlmApi(flags.llmApi);
        Map<String, Object> samplingParams = SamplingParamsParser.parse(flags.additionalSamplingParams);
        Map<String, String> metadata = MetadataParser.parse(flags.metadata);
        // the choice first: a --simulator run with the base set must hear that, not what a real run lacks (its key)
        checkSimulatorWithBase(connection.simulator, flags.llmApi, context);
        EndpointTarget target = target(context, access.apiKeyFile, flags.llmApi, limits.waitForServer());
        checkSimulatorChoice(target, connection.simulator, flags, access.apiKeyFile, context);
        String model = flags.model;
        if (model == null || model.isBlank()) {
            if (target instanceof EndpointTarget.Remote) {
                throw new UsageException("--model is required when " + registered(flags.llmApi).baseVariable()
                        + " is set");
            }
            model = CommonFlags.EMBEDDED_MODEL;
        }
        CommonSettings options = new CommonSettings(target, model, flags.numConcurrentRequests, flags.timeoutSeconds,
                maxNumCompletedRequests, samplingParams, resultsDir, flags.llmApi, metadata,
                limits.idleTimeout(), headers, access.caCert,
                limits.requestTimeout(),
                limits.connectTimeout(), access.insecure, overwrite,
                limits.mode(), scrapeHeaders(access));
        warnIfInsecure(access, context);
        warnIfHeaderReplacesKey(headers, flags.llmApi, target, context);
        noteOtherApisKey(target, connection.simulator, flags.llmApi, context);
        return options;
    }

    /**
     * The embedded simulated server only when it is what the user asked for: a run without the base variable that
     * carries a real server's marks (the key variable or --api-key-file, a --model other than the simulator's, as an
     * llmperf user sets and names them) is refused unless --simulator says so, since a job that lost its base
     * variable would otherwise publish the simulator's figures under the model's name. (--simulator with the base
     * variable set is {@link #checkSimulatorWithBase}'s, checked first.)
     */
    static void checkSimulatorChoice(EndpointTarget target, boolean simulator, CommonFlags flags, Path apiKeyFile,
                                     CliContext context) {
        ApiRegistry.Api api = registered(flags.llmApi);
        if (!(target instanceof EndpointTarget.Embedded) || simulator) return;
        List<String> marks = new java.util.ArrayList<>();
        String key = context.env(api.keyVariable());
        if (key != null && !key.isBlank()) marks.add(api.keyVariable() + " is set");
        if (apiKeyFile != null) marks.add("--api-key-file is given");
        if (flags.model != null && !flags.model.isBlank() && !flags.model.strip().equals(CommonFlags.EMBEDDED_MODEL)) {
            marks.add("--model names '" + flags.model.strip() + "'");
        }
        if (marks.isEmpty()) return;
        throw new UsageException(api.baseVariable() + " is not set, but " + String.join(" and ", marks)
                + ": set " + api.baseVariable() + " to the server's base URL (e.g. " + api.defaultBase()
                + ") to benchmark it, or add --simulator to benchmark the embedded simulated server");
    }

    /**
     * One line when the simulator answers and another API's key variable is set (OPENAI_API_KEY with --llm-api
     * anthropic, ANTHROPIC_API_KEY with an OpenAI API): that key is not read. Not a refusal, unlike another API's
     * base or this API's key: a key names no server, and OPENAI_API_KEY is often set for the whole shell; but a user
     * who meant a real server learns why the simulator answered. Nothing with --simulator: the user chose it.
     */
    static void noteOtherApisKey(EndpointTarget target, boolean simulator, String llmApi, CliContext context) {
        if (!(target instanceof EndpointTarget.Embedded) || simulator) return;
        ApiRegistry.Api api = registered(llmApi);
        Set<String> noted = new TreeSet<>();
        for (ApiRegistry.Api other : ApiRegistry.APIS) {
            String otherKey = other.keyVariable();
            String value = context.env(otherKey);
            if (otherKey.equals(api.keyVariable()) || value == null || value.isBlank() || !noted.add(otherKey)) {
                continue;
            }
            context.err().println("llmperf4j: note: " + otherKey + " is set, but --llm-api " + api.name()
                    + " reads " + api.baseVariable() + " and " + api.keyVariable() + ", so it is not used: with "
                    + api.baseVariable() + " unset the embedded simulated server answers");
        }
    }

    /**
     * --simulator with the base variable set (even empty) contradicts it. Checked before the endpoint is read, whose
     * own refusals (no key, an empty base) speak of a real run the user did not ask for.
     */
    static void checkSimulatorWithBase(boolean simulator, String llmApi, CliContext context) {
        ApiRegistry.Api api = registered(llmApi);
        if (simulator && context.env(api.baseVariable()) != null) {
            throw new UsageException("--simulator benchmarks the embedded simulated server, but "
                    + api.baseVariable() + " is set: unset " + api.baseVariable() + ", or drop --simulator to "
                    + "benchmark the server it names");
        }
    }

    /**
     * One line when a --header has the name of the header the API sends its key in (OpenAI's Authorization,
     * Anthropic's x-api-key): it replaces the key in every request, which is what a gateway's token needs, but must
     * not happen unseen.
     */
    static void warnIfHeaderReplacesKey(Map<String, String> headers, String llmApi, EndpointTarget target,
                                        CliContext context) {
        if (!(target instanceof EndpointTarget.Remote remote) || headers.isEmpty()) return;
        String marker = "llmperf4j-key-marker";
        registered(llmApi).adapter(true).headers(Secret.of(marker)).forEach((keyHeader, value) -> {
            if (!value.contains(marker)) return;
            for (String given : headers.keySet()) {
                if (given.equalsIgnoreCase(keyHeader)) {
                    context.err().println("llmperf4j: warning: --header " + given + " replaces the key from "
                            + remote.keySource() + " in every request");
                }
            }
        });
    }

    /** The connection flags checked (a run's and doctor's), as doctor takes them. */
    static Doctor.Connection connectionLimits(ConnectionFlags connection) {
        Duration idleTimeout = positiveSeconds("--idle-timeout", connection.idleTimeoutSeconds);
        Duration connectTimeout = positiveSeconds("--connect-timeout", connection.connectTimeoutSeconds);
        atLeast("--wait-for-server", connection.waitForServerSeconds, 0);
        Duration requestTimeout = connection.requestTimeoutSeconds == null ? null
                : positiveSeconds("--request-timeout", connection.requestTimeoutSeconds);
        return new Doctor.Connection(connectTimeout, idleTimeout, requestTimeout,
                Duration.ofSeconds(connection.waitForServerSeconds), connection.connectionMode);
    }

    /** The --header values parsed, after checking that the TLS flags agree and the --ca-cert file is there. */
    static Map<String, String> checkedHeaders(EndpointAccessFlags access) {
        if (access.insecure && access.caCert != null) {
            throw new UsageException("--insecure and --ca-cert contradict each other: trust any certificate, "
                    + "or only those in the file");
        }
        requireReadable("--ca-cert", access.caCert);
        return parseHeaders("--header", access.headers);
    }

    /** The --server-metrics-header values parsed: headers for the scrape of the server's metrics alone. */
    static Map<String, String> scrapeHeaders(EndpointAccessFlags access) {
        return parseHeaders("--server-metrics-header", access.scrapeHeaders);
    }

    static void warnIfInsecure(EndpointAccessFlags access, CliContext context) {
        if (access.insecure) {
            context.err().println("llmperf4j: warning: --insecure: TLS certificates and host names are NOT verified");
        }
    }

    /** --results-dir as given; null when empty (nothing is saved). */
    static Path resultsDir(String flag) {
        return flag.isEmpty() ? null : Path.of(flag);
    }

    /** Seconds above 0 (fractions allowed) as a duration, else a {@link UsageException} naming the flag. */
    static Duration positiveSeconds(String option, double seconds) {
        if (!(seconds > 0) || !Double.isFinite(seconds)) {
            throw new UsageException(option + ": expected seconds above 0, got " + seconds);
        }
        return Duration.ofNanos(Math.round(seconds * 1e9));
    }

    static void atLeast(String option, int value, int minimum) {
        if (value < minimum) {
            throw new UsageException(option + " (" + value + ") must be >= " + minimum);
        }
    }

    static void requireReadable(String option, Path file) {
        if (file != null && !Files.isRegularFile(file)) {
            throw new UsageException(option + " " + file + " is not a readable file");
        }
    }

    private static Map<String, String> parseHeaders(String flag, List<String> headers) {
        Map<String, String> parsed = new LinkedHashMap<>();
        for (String header : headers) {
            int colon = header.indexOf(':');
            String name = colon < 0 ? "" : header.substring(0, colon).strip();
            if (name.isEmpty() || !name.chars().allMatch(ch -> ch > 32 && ch < 127 && ch != ':')) {
                throw new UsageException(flag + " must look like 'Name: value' (got a header without a valid name)");
            }
            String value = header.substring(colon + 1).strip();
            // a line break would end the header early (and split the request): refuse it here, not at the first send
            if (value.chars().anyMatch(ch -> ch == '\r' || ch == '\n' || ch == 0)) {
                throw new UsageException(flag + " " + name + ": the value holds a line break or NUL, which an HTTP "
                        + "header cannot carry");
            }
            parsed.put(name, value);
        }
        return parsed;
    }

    /** An --llm-api this tool supports, else a {@link UsageException} listing them. */
    static void checkLlmApi(String llmApi) {
        registered(llmApi);
    }

    /** The registry's entry of an --llm-api, else a {@link UsageException} listing the supported ones. */
    static ApiRegistry.Api registered(String llmApi) {
        try {
            return ApiRegistry.get(llmApi);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * Where requests go, llmperf's rule: the base and key variables of {@code llmApi} (OPENAI_API_BASE and
     * OPENAI_API_KEY, or ANTHROPIC_*), both non-empty, with --api-key-file in place of the key variable when given;
     * the embedded simulated server when the base variable is unset. A run waits up to {@code readyWait} for the
     * endpoint to accept connections.
     */
    static EndpointTarget target(CliContext context, Path apiKeyFile, String llmApi, Duration readyWait) {
        ApiRegistry.Api api = registered(llmApi);
        String baseVar = api.baseVariable();
        String keyVar = api.keyVariable();
        String base = context.env(baseVar);
        if (base == null) {
            // another API's base set means a real server was meant: the simulator would answer in its place unseen
            for (ApiRegistry.Api other : ApiRegistry.APIS) {
                String otherVar = other.baseVariable();
                if (!otherVar.equals(baseVar) && context.env(otherVar) != null) {
                    throw new UsageException("--llm-api " + api.name() + " reads " + baseVar + ", which is not set, "
                            + "while " + otherVar + " is: set " + baseVar + " (and " + keyVar + ") to benchmark that "
                            + "server, or unset " + otherVar + " to benchmark the embedded simulated server");
                }
            }
            // the simulator needs no key, but a key file that cannot be read is a mistake to say now, not at the
            // first run against the real server
            if (apiKeyFile != null) ApiKeyFile.read(apiKeyFile);
            return new EndpointTarget.Embedded(baseVar, keyVar);
        }
        if (base.isBlank()) {
            throw new UsageException(baseVar + " is set but empty; set it to the server's base URL such as "
                    + "http://localhost:8000/v1, or unset it to benchmark the embedded simulated server");
        }
        String key = apiKeyFile != null ? ApiKeyFile.read(apiKeyFile) : context.env(keyVar);
        String keyProblem = EndpointTarget.keyProblem(keyVar, key);
        if (keyProblem != null) {
            throw new UsageException(keyProblem + " (or pass --api-key-file); llmperf requires it with " + baseVar
                    + " (" + EndpointTarget.keyFix(keyVar) + ")");
        }
        return new EndpointTarget.Remote(base.strip(), key, baseVar,
                apiKeyFile != null ? "--api-key-file " + apiKeyFile : keyVar, readyWait);
    }
}
