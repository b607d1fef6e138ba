package io.llmperf4j.run;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;

/** One TCP connect before the run, so an unreachable endpoint is one clear error instead of N failed requests. */
final class Preflight {
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
    private static final String BASE_VARIABLES = "OPENAI_API_BASE (ANTHROPIC_API_BASE with --llm-api anthropic)";

    private Preflight() {
    }

    static void checkReachable(URI endpoint) {
        String host = endpoint.getHost();
        int port = endpoint.getPort() > 0 ? endpoint.getPort() : "https".equalsIgnoreCase(endpoint.getScheme()) ? 443 : 80;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
        } catch (UnknownHostException e) {
            throw new RunFailedException("cannot reach " + host + ":" + port + ": unknown host; check " + BASE_VARIABLES);
        } catch (IOException e) {
            throw new RunFailedException("cannot reach " + host + ":" + port + " (" + e.getMessage()
                    + "); check " + BASE_VARIABLES + " and that the server is running (try: curl <base>/models)");
        }
    }
}
