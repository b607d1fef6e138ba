package io.llmperf4j.distributed;

/**
 * A cluster address as given on the command line: {@code HOST}, {@code HOST:PORT} or {@code [IPv6]:PORT}.
 *
 * @param host the host name or IP address
 * @param port the port, or 0 when none was given
 */
public record HostPort(String host, int port) {

    public HostPort {
        if (host == null || host.isBlank()) throw new IllegalArgumentException("the host is empty");
        if (port < 0 || port > 65_535) throw new IllegalArgumentException("port " + port + " is not in 0..65535");
    }

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException with a message naming the problem
     */
    public static HostPort parse(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty()) throw new IllegalArgumentException("an address is empty; use HOST or HOST:PORT");
        if (t.startsWith("[")) {
            int close = t.indexOf(']');
            if (close < 0) throw new IllegalArgumentException("'" + text + "' has no closing ']'");
            String host = t.substring(1, close);
            String rest = t.substring(close + 1);
            if (rest.isEmpty()) return new HostPort(host, 0);
            if (!rest.startsWith(":")) throw new IllegalArgumentException("'" + text + "' is not [HOST]:PORT");
            return new HostPort(host, port(text, rest.substring(1)));
        }
        int colon = t.lastIndexOf(':');
        if (colon < 0 || t.indexOf(':') != colon) return new HostPort(t, 0); // a bare IPv6 address has many colons
        return new HostPort(t.substring(0, colon), port(text, t.substring(colon + 1)));
    }

    private static int port(String text, String port) {
        try {
            int p = Integer.parseInt(port);
            if (p < 1 || p > 65_535) throw new NumberFormatException();
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': the port must be a number in 1..65535");
        }
    }

    /** {@code host:port}, or the host alone without a port. */
    @Override
    public String toString() {
        String h = host.contains(":") ? "[" + host + "]" : host;
        return port == 0 ? h : h + ":" + port;
    }
}
