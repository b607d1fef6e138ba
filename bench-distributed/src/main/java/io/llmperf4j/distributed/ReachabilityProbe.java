package io.llmperf4j.distributed;

import java.io.IOException;
import java.io.Serial;
import java.io.Serializable;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;

/**
 * Runs on a worker before the start: one TCP connect to the endpoint from where the load will come from. Returns
 * null when it connects, else what went wrong.
 */
final class ReachabilityProbe implements Callable<String>, Serializable {
    @Serial
    private static final long serialVersionUID = 1L;
    static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private final String endpoint;

    ReachabilityProbe(URI endpoint) {
        this.endpoint = endpoint.toString();
    }

    @Override
    public String call() {
        URI uri = URI.create(endpoint);
        String host = uri.getHost();
        int port = uri.getPort() > 0 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MILLIS);
            return null;
        } catch (UnknownHostException e) {
            return "cannot reach " + host + ":" + port + ": unknown host";
        } catch (IOException e) {
            return "cannot reach " + host + ":" + port + " (" + e.getMessage() + ")";
        }
    }
}
