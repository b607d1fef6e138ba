package io.llmperf4j.servermetrics.scrape;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/** The bytes of a scrape's GET: request line and headers, as an HTTP/1.1 client sends them. */
final class ScrapeRequests {

    static final String USER_AGENT = "llmperf4j";

    private ScrapeRequests() {
    }

    /**
     * A GET of {@code url} that accepts {@code accept}, with {@code headers} (credentials: the run's key, --header,
     * --server-metrics-header) after the scrape's own. No Accept-Encoding: the body comes uncompressed, as it did
     * from {@code java.net.http}.
     *
     * @throws ScrapeFailedException when {@code url} is not an http(s) URL with a host (a redirect's Location), or
     *                               a header holds a character a header cannot carry (its value is never told)
     */
    static byte[] get(URI url, String accept, Map<String, String> headers) throws ScrapeFailedException {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null) {
            throw new ScrapeFailedException("invalid URL " + Origins.display(url));
        }
        URI ascii = URI.create(url.toASCIIString());
        String path = ascii.getRawPath() == null || ascii.getRawPath().isEmpty() ? "/" : ascii.getRawPath();
        String target = ascii.getRawQuery() == null ? path : path + "?" + ascii.getRawQuery();
        StringBuilder head = new StringBuilder(256)
                .append("GET ").append(target).append(" HTTP/1.1\r\n")
                .append("Host: ").append(ascii.getHost()).append(url.getPort() >= 0 ? ":" + url.getPort() : "")
                .append("\r\n")
                .append("User-Agent: ").append(USER_AGENT).append("\r\n")
                .append("Accept: ").append(accept).append("\r\n");
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (!token(h.getKey())) {
                throw new ScrapeFailedException("a header name the scrape would send is not an HTTP header name");
            }
            if (!headerSafe(h.getValue())) {
                throw new ScrapeFailedException("the " + h.getKey() + " header holds a character an HTTP header "
                        + "cannot carry");
            }
            head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n");
        }
        return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A header name: visible ASCII but the separators a name cannot hold. */
    private static boolean token(String name) {
        if (name.isEmpty()) return false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= 0x20 || c >= 0x7f || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) return false;
        }
        return true;
    }

    /** Visible ASCII and spaces only: no line break that would end the header and start another. */
    private static boolean headerSafe(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 && c != '\t' || c >= 0x7f) return false;
        }
        return true;
    }
}
