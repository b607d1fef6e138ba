package io.llmperf4j.engine.client;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Everything a {@link NettyLlmClient} needs, validated once. Build with {@link #builder(URI, String)}; every
 * option not set takes its {@code DEFAULT_*}.
 *
 * @param endpoint                 the API's full URL ({@link LlmApi#endpoint}, e.g. {@link EndpointUrls#chatCompletions})
 * @param apiKey                   sent as the API wants ({@code Authorization: Bearer <key>}, Anthropic's
 *                                 {@code x-api-key}); no header when empty
 * @param model                    the {@code model} field of the body
 * @param additionalSamplingParams merged into the body after {@code max_tokens} (dict.update), in their order; JSON
 *                                 values as Java objects
 * @param includeUsage             send {@code stream_options: {"include_usage": true}} (server usage in the record)
 * @param maxConnections           upper bound on open connections; requests beyond it wait for a free one (and that
 *                                 wait counts in their TTFT), so set it to at least the concurrency
 * @param connectTimeout           limit of the TCP connect, and again of the TLS handshake; exceeding either fails the
 *                                 request as CONNECT_FAILED ("connect timed out after N ms to host:port", or "TLS
 *                                 handshake failed: ...")
 * @param idleTimeout              no bytes for this long while a request is in flight fails it as IDLE_TIMEOUT
 * @param requestTimeout           a whole request (from send, so connection wait and set-up included) longer than
 *                                 this fails as REQUEST_TIMEOUT, keeping the data received so far; null (the default)
 *                                 for no limit
 * @param maxEventBytes            largest SSE event data accepted
 * @param extraHeaders             more request headers, in order; one with a standard header's name replaces it
 * @param ioThreads                Netty event loop threads
 * @param workerThreads            threads that complete records (their callbacks never run on the I/O threads)
 * @param preferNativeTransport    use epoll when the native library loads (NIO otherwise)
 * @param trustedCertificatesPem   PEM file of CA certificates to trust for https instead of the JDK's default trust
 *                                 store, or null; hostname verification stays on either way
 * @param insecureTls              https trusts any certificate and skips hostname verification (default false): for
 *                                 self-signed test endpoints only; callers should warn. Not with
 *                                 trustedCertificatesPem; no effect on http. A handshake that fails otherwise (for
 *                                 example an untrusted certificate) is CONNECT_FAILED "TLS handshake failed: ..."
 * @param connectionMode           when connections open and whether they are kept ({@link ConnectionMode}):
 *                                 {@code PRECONNECT} (default) opens them before a run's clock starts and reuses
 *                                 them, {@code ON_DEMAND} opens them as the first requests need them (connect inside
 *                                 those TTFTs), {@code PER_REQUEST} opens a new one for every request and closes it
 *                                 after the response (llmperf's behaviour: every TTFT includes a connect)
 */
public record ClientConfig(
        URI endpoint,
        Secret apiKey,
        String model,
        Map<String, Object> additionalSamplingParams,
        boolean includeUsage,
        int maxConnections,
        Duration connectTimeout,
        Duration idleTimeout,
        Duration requestTimeout,
        int maxEventBytes,
        Map<String, String> extraHeaders,
        int ioThreads,
        int workerThreads,
        boolean preferNativeTransport,
        Path trustedCertificatesPem,
        boolean insecureTls,
        ConnectionMode connectionMode) {

    public static final boolean DEFAULT_INCLUDE_USAGE = true;
    public static final ConnectionMode DEFAULT_CONNECTION_MODE = ConnectionMode.PRECONNECT;
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(30);
    /** llmperf's {@code requests} timeout of 180 s applies per read, so it is an idle timeout. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(180);
    public static final int DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;
    /**
     * One event loop per two cores, at most four: the I/O threads share the cores with the token counting, the
     * journal, the collector and often the server itself, and one loop streams over a million chunks a second. On 2
     * cores (side by side, 7 interleaved pairs of stream ceilings against two loops) one loop took 0.76 s of CPU per
     * million chunks (median) against 0.83, stayed under one core in 7 of 7 against 5 of 7, and peaked 4 MB lower at
     * 256 streams, with TTFT error and send side unchanged within the runs' spread.
     */
    public static final int DEFAULT_IO_THREADS =
            Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
    public static final int DEFAULT_WORKER_THREADS =
            Math.max(2, Math.min(8, Runtime.getRuntime().availableProcessors()));

    /** As before connection modes existed: {@link #DEFAULT_CONNECTION_MODE}. */
    public ClientConfig(URI endpoint, Secret apiKey, String model, Map<String, Object> additionalSamplingParams,
                        boolean includeUsage, int maxConnections, Duration connectTimeout, Duration idleTimeout,
                        Duration requestTimeout, int maxEventBytes, Map<String, String> extraHeaders, int ioThreads,
                        int workerThreads, boolean preferNativeTransport, Path trustedCertificatesPem,
                        boolean insecureTls) {
        this(endpoint, apiKey, model, additionalSamplingParams, includeUsage, maxConnections, connectTimeout,
                idleTimeout, requestTimeout, maxEventBytes, extraHeaders, ioThreads, workerThreads,
                preferNativeTransport, trustedCertificatesPem, insecureTls, DEFAULT_CONNECTION_MODE);
    }

    public ClientConfig {
        connectionMode = connectionMode == null ? DEFAULT_CONNECTION_MODE : connectionMode;
        Objects.requireNonNull(endpoint, "endpoint");
        String scheme = endpoint.getScheme() == null ? "" : endpoint.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("endpoint scheme '" + endpoint.getScheme()
                    + "' is not supported; use http or https");
        }
        if (endpoint.getHost() == null) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' has no host");
        }
        if (endpoint.getRawUserInfo() != null) {
            throw new IllegalArgumentException("endpoint must not contain credentials (user:password@)");
        }
        apiKey = apiKey == null ? Secret.none() : apiKey;
        Objects.requireNonNull(model, "model");
        additionalSamplingParams = Collections.unmodifiableMap(new LinkedHashMap<>(
                additionalSamplingParams == null ? Map.of() : additionalSamplingParams));
        requireAtLeast("maxConnections", maxConnections, 1);
        requirePositive("connectTimeout", connectTimeout);
        requirePositive("idleTimeout", idleTimeout);
        if (requestTimeout != null) requirePositive("requestTimeout", requestTimeout);
        requireAtLeast("maxEventBytes", maxEventBytes, 1);
        if (maxEventBytes > Integer.MAX_VALUE - 1024) {
            throw new IllegalArgumentException("maxEventBytes (" + maxEventBytes + ") must be <= "
                    + (Integer.MAX_VALUE - 1024));
        }
        extraHeaders = Collections.unmodifiableMap(new LinkedHashMap<>(extraHeaders == null ? Map.of() : extraHeaders));
        extraHeaders.forEach(ClientConfig::validateHeader);
        requireAtLeast("ioThreads", ioThreads, 1);
        requireAtLeast("workerThreads", workerThreads, 1);
        if (insecureTls && trustedCertificatesPem != null) {
            throw new IllegalArgumentException("insecureTls and trustedCertificatesPem (" + trustedCertificatesPem
                    + ") contradict each other: trust any certificate, or only those in the file");
        }
    }

    public static Builder builder(URI endpoint, String model) {
        return new Builder(endpoint, model);
    }

    /**
     * The additional parameters' {@code max_tokens} when it is a whole number of at least 1 (the body sends it in
     * place of the drawn one); null when they have none, or one the server is left to judge (a string, a fraction).
     */
    public Integer maxTokensParam() {
        if (!(additionalSamplingParams.get("max_tokens") instanceof Number n)) return null;
        double v = n.doubleValue();
        return v >= 1 && v <= Integer.MAX_VALUE && v == Math.rint(v) ? (int) v : null;
    }

    /** {@code host:port} of the endpoint, for messages (never credentials). */
    public String hostAndPort() {
        return endpoint.getHost() + ":" + port();
    }

    /** The endpoint's port, defaulted by scheme. */
    public int port() {
        if (endpoint.getPort() > 0) return endpoint.getPort();
        return isHttps() ? 443 : 80;
    }

    public boolean isHttps() {
        return "https".equalsIgnoreCase(endpoint.getScheme());
    }

    /** Header values are not shown: they may hold credentials. */
    @Override
    public String toString() {
        return "ClientConfig[endpoint=" + endpoint + ", apiKey=" + apiKey + ", model=" + model
                + ", additionalSamplingParams=" + additionalSamplingParams + ", includeUsage=" + includeUsage
                + ", maxConnections=" + maxConnections + ", connectTimeout=" + connectTimeout
                + ", idleTimeout=" + idleTimeout + ", requestTimeout=" + requestTimeout
                + ", maxEventBytes=" + maxEventBytes
                + ", extraHeaders=" + extraHeaders.keySet().stream().collect(Collectors.joining(", ", "[", "]"))
                + ", ioThreads=" + ioThreads + ", workerThreads=" + workerThreads
                + ", preferNativeTransport=" + preferNativeTransport
                + ", trustedCertificatesPem=" + trustedCertificatesPem + ", insecureTls=" + insecureTls
                + ", connectionMode=" + connectionMode + "]";
    }

    private static void requireAtLeast(String name, int value, int min) {
        if (value < min) throw new IllegalArgumentException(name + " (" + value + ") must be >= " + min);
    }

    private static void requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " (" + value + ") must be > 0");
        }
    }

    private static void validateHeader(String name, String value) {
        if (name == null || name.isEmpty() || !name.chars().allMatch(ClientConfig::isTokenChar)) {
            throw new IllegalArgumentException("header name '" + name + "' is not a valid HTTP token");
        }
        if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("value of header '" + name + "' must be non-null without CR or LF");
        }
    }

    private static boolean isTokenChar(int c) {
        return c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
    }

    /** Collects options; unset ones take the {@code DEFAULT_*} constants. */
    public static final class Builder {
        private final URI endpoint;
        private final String model;
        private Secret apiKey = Secret.none();
        private Map<String, Object> additionalSamplingParams = Map.of();
        private boolean includeUsage = DEFAULT_INCLUDE_USAGE;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private Duration requestTimeout;
        private int maxEventBytes = DEFAULT_MAX_EVENT_BYTES;
        private Map<String, String> extraHeaders = Map.of();
        private int ioThreads = DEFAULT_IO_THREADS;
        private int workerThreads = DEFAULT_WORKER_THREADS;
        private boolean preferNativeTransport = true;
        private Path trustedCertificatesPem;
        private boolean insecureTls;
        private ConnectionMode connectionMode = DEFAULT_CONNECTION_MODE;

        private Builder(URI endpoint, String model) {
            this.endpoint = endpoint;
            this.model = model;
        }

        public Builder apiKey(Secret key) {
            this.apiKey = key;
            return this;
        }

        public Builder additionalSamplingParams(Map<String, ?> params) {
            this.additionalSamplingParams = new LinkedHashMap<>(params);
            return this;
        }

        public Builder includeUsage(boolean include) {
            this.includeUsage = include;
            return this;
        }

        public Builder maxConnections(int max) {
            this.maxConnections = max;
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = timeout;
            return this;
        }

        /** A limit on the whole request; null for none (the default). */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        public Builder maxEventBytes(int max) {
            this.maxEventBytes = max;
            return this;
        }

        public Builder extraHeaders(Map<String, String> headers) {
            this.extraHeaders = new LinkedHashMap<>(headers);
            return this;
        }

        public Builder ioThreads(int threads) {
            this.ioThreads = threads;
            return this;
        }

        public Builder workerThreads(int threads) {
            this.workerThreads = threads;
            return this;
        }

        public Builder preferNativeTransport(boolean prefer) {
            this.preferNativeTransport = prefer;
            return this;
        }

        public Builder trustedCertificatesPem(Path pem) {
            this.trustedCertificatesPem = pem;
            return this;
        }

        /** Trust any certificate and skip hostname verification: self-signed test endpoints only. */
        public Builder insecureTls(boolean insecure) {
            this.insecureTls = insecure;
            return this;
        }

        /** When connections open and whether they are kept; {@link ConnectionMode#PRECONNECT} by default. */
        public Builder connectionMode(ConnectionMode mode) {
            this.connectionMode = mode;
            return this;
        }

        public ClientConfig build() {
            return new ClientConfig(endpoint, apiKey, model, additionalSamplingParams, includeUsage, maxConnections,
                    connectTimeout, idleTimeout, requestTimeout, maxEventBytes, extraHeaders, ioThreads, workerThreads,
                    preferNativeTransport, trustedCertificatesPem, insecureTls, connectionMode);
        }
    }
}
