package io.llmperf4j.cli;

import picocli.CommandLine.Help;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How to reach and authenticate with an endpoint: TLS trust, the key's file, extra headers and the server-metrics
 * scrape's own. A picocli group of
 * the commands that send requests (an argument group inside {@link ConnectionFlags}) and of doctor, which must
 * reach the endpoint the same way.
 */
final class EndpointAccessFlags {
    @Option(names = "--insecure",
            description = "Accept any TLS certificate and host name (self-signed test endpoints only).")
    boolean insecure;

    @Option(names = "--api-key-file", paramLabel = "FILE",
            description = "Read the API key from this file instead of OPENAI_API_KEY "
                    + "(keeps it out of the environment and shell history).")
    Path apiKeyFile;

    @Option(names = "--header", paramLabel = "'NAME: VALUE'", showDefaultValue = Help.Visibility.NEVER,
            description = "An extra request header for gateways that need one; repeatable.")
    List<String> headers = new ArrayList<>();

    @Option(names = "--server-metrics-header", paramLabel = "'NAME: VALUE'", showDefaultValue = Help.Visibility.NEVER,
            description = "A header for the server-metrics scrape alone, sent to the metrics URL whatever its "
                    + "origin (the API key and --header go only to the API's own origin); repeatable.")
    List<String> scrapeHeaders = new ArrayList<>();

    @Option(names = "--ca-cert", paramLabel = "FILE",
            description = "PEM file of CA certificates to trust for https (host names are still "
                    + "verified).")
    Path caCert;
}
