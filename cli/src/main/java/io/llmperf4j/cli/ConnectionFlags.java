package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ConnectionMode;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;

/** Our connection flags (not llmperf's), shared by the commands that send requests (doctor too). A picocli group. */
sealed class ConnectionFlags permits RunConnectionFlags {
    @Option(names = "--idle-timeout", defaultValue = "180", paramLabel = "SECONDS",
            description = "Seconds without any byte from the server before a request fails "
                    + "(llmperf's requests timeout is 180 s per read); fractions allowed, e.g. 0.5.")
    double idleTimeoutSeconds;

    @Option(names = "--request-timeout", paramLabel = "SECONDS",
            description = "Fail a request that takes longer than this in total (default: no limit; "
                    + "data received so far is kept); fractions allowed, e.g. 1.5.")
    Double requestTimeoutSeconds;

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "Limit for the TCP connect (and again for the TLS handshake), in seconds; fractions "
                    + "allowed.")
    double connectTimeoutSeconds;

    @Option(names = "--connection-mode", paramLabel = "MODE", defaultValue = "preconnect",
            completionCandidates = CompletionValues.ConnectionModes.class,
            converter = ConnectionModeConverter.class,
            description = "When connections open. preconnect (default): one keep-alive connection per "
                    + "concurrency slot opened before the clock starts (and before each sweep level), their connect "
                    + "times reported apart, so no TTFT holds a connect; on-demand: opened by the first requests, "
                    + "inside their TTFT; per-request: llmperf's way, a new connection for every request, connect "
                    + "inside every TTFT.")
    ConnectionMode connectionMode;

    @Option(names = "--wait-for-server", paramLabel = "SECONDS", defaultValue = "0",
            description = "Wait up to this long for the endpoint to accept connections before the run, for a server "
                    + "still starting (a model loading); 0 (default): a refused connection fails at once, as in "
                    + "llmperf.")
    int waitForServerSeconds;

    /** --insecure, --api-key-file, --header and --ca-cert, which doctor takes too. */
    @ArgGroup(validate = false)
    EndpointAccessFlags access = new EndpointAccessFlags();

    /** {@code preconnect}, {@code on-demand}, {@code per-request}: the enum's names as users type flags. */
    static final class ConnectionModeConverter implements ITypeConverter<ConnectionMode> {
        @Override
        public ConnectionMode convert(String value) {
            for (ConnectionMode mode : ConnectionMode.values()) {
                if (flagName(mode).equals(value.trim().toLowerCase(Locale.ROOT))) return mode;
            }
            throw new TypeConversionException("'" + value + "' is not a connection mode: use preconnect, on-demand "
                    + "or per-request");
        }

        static String flagName(ConnectionMode mode) {
            return mode.name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }
}
