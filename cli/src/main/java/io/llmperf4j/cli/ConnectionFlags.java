package io.llmperf4j.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Our connection flags (not llmperf's), shared by the commands that send requests. A picocli mixin. */
final class ConnectionFlags {
    @Option(names = "--idle-timeout", defaultValue = "180",
            description = "llmperf4j: seconds without any byte from the server before a request fails "
                    + "(llmperf's requests timeout is 180 s per read).")
    int idleTimeoutSeconds;

    @Option(names = "--request-timeout", paramLabel = "SECONDS",
            description = "llmperf4j: fail a request that takes longer than this in total (default: no limit; "
                    + "data received so far is kept); fractions allowed, e.g. 1.5.")
    Double requestTimeoutSeconds;

    @Option(names = "--connect-timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "llmperf4j: limit for the TCP connect (and again for the TLS handshake).")
    int connectTimeoutSeconds;

    @Option(names = "--insecure",
            description = "llmperf4j: accept any TLS certificate and host name (self-signed test endpoints only).")
    boolean insecure;

    @Option(names = "--api-key-file", paramLabel = "FILE",
            description = "llmperf4j: read the API key from this file instead of OPENAI_API_KEY "
                    + "(keeps it out of the environment and shell history).")
    Path apiKeyFile;

    @Option(names = "--header", paramLabel = "'NAME: VALUE'",
            description = "llmperf4j: an extra request header for gateways that need one; repeatable.")
    List<String> headers = new ArrayList<>();

    @Option(names = "--ca-cert", paramLabel = "FILE",
            description = "llmperf4j: PEM file of CA certificates to trust for https (host names are still "
                    + "verified).")
    Path caCert;
}
