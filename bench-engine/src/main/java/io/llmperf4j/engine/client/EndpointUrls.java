package io.llmperf4j.engine.client;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Builds the chat completions URL from an OpenAI-style API base.
 *
 * <p>llmperf's rule: add "/" if the base lacks one, then append {@code chat/completions}; so
 * {@code http://host:8000/v1} becomes {@code http://host:8000/v1/chat/completions}. Unlike llmperf (issue #58), a
 * base that already ends in {@code /chat/completions} (with or without a trailing slash) is used as is. A query
 * string is kept after the path (Azure's {@code ?api-version=}). Only http and https are accepted, and credentials
 * in the URL are refused so that they can never leak into records or messages.
 */
public final class EndpointUrls {

    static final String CHAT_COMPLETIONS = "chat/completions";

    private EndpointUrls() {
    }

    /**
     * @param base the API base, e.g. {@code http://localhost:8000/v1} (llmperf's OPENAI_API_BASE)
     * @return the absolute chat completions endpoint
     * @throws IllegalArgumentException when the base is empty, not an absolute http(s) URL, has no host, an invalid
     *                                  port, user info or a fragment
     */
    public static URI chatCompletions(String base) {
        return withPath(base, CHAT_COMPLETIONS);
    }

    /**
     * Text completions: base + {@code /completions}, or the base as is when it already ends in {@code /completions}.
     *
     * @throws IllegalArgumentException as {@link #chatCompletions}, and for a base ending in {@code /chat/completions}
     */
    public static URI completions(String base) {
        URI uri = withPath(base, "completions");
        if (uri.getRawPath().endsWith("/" + CHAT_COMPLETIONS)) {
            throw new IllegalArgumentException("endpoint base URL '" + uri.getScheme() + "://" + uri.getRawAuthority()
                    + uri.getRawPath() + "' is a chat completions URL; give the API base (e.g. .../v1) for "
                    + "text completions");
        }
        return uri;
    }

    /** Anthropic Messages: base + {@code /messages} (base e.g. {@code https://api.anthropic.com/v1}), or as is. */
    public static URI messages(String base) {
        return withPath(base, "messages");
    }

    /** Embeddings: base + {@code /embeddings}, or the base as is when it already ends so. */
    public static URI embeddings(String base) {
        return withPath(base, "embeddings");
    }

    /** What {@code api} appends to the base, e.g. {@code chat/completions}. */
    public static String suffix(LlmApi api) {
        return api.endpoint("http://localhost/v1").getPath().substring("/v1/".length());
    }

    /**
     * The API base a URL a server pointed to belongs to: {@code https://h/served/v1} for
     * {@code https://h/served/v1/chat/completions?x=1} and the suffix {@code chat/completions}; null when its path
     * does not end with the suffix or it is no absolute URL.
     */
    public static String baseOf(String url, String suffix) {
        try {
            URI uri = new URI(url);
            String path = uri.getRawPath();
            if (uri.getScheme() == null || uri.getRawAuthority() == null || path == null
                    || !path.endsWith("/" + suffix)) {
                return null;
            }
            return uri.getScheme() + "://" + uri.getRawAuthority()
                    + path.substring(0, path.length() - suffix.length() - 1);
        } catch (URISyntaxException e) {
            return null;
        }
    }

    /** The rule above for any path suffix: appended after one "/", unless the base already ends with it. */
    static URI withPath(String base, String suffix) {
        if (base == null || base.isBlank()) {
            throw new IllegalArgumentException(
                    "endpoint base URL is empty; give one such as http://localhost:8000/v1 (llmperf's OPENAI_API_BASE)");
        }
        String trimmed = base.trim();
        if (!trimmed.contains("://")) {
            throw new IllegalArgumentException(
                    "endpoint base URL '" + shown(trimmed) + "' must start with http:// or https://");
        }
        URI uri;
        try {
            uri = new URI(trimmed);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(
                    "endpoint base URL '" + shown(trimmed) + "' is not a valid URL: " + e.getReason());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("endpoint scheme '" + uri.getScheme() + "' in '" + shown(trimmed)
                    + "' is not supported; use http or https");
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException("endpoint base URL must not contain credentials (user:password@); "
                    + "pass the API key separately");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException("endpoint base URL '" + trimmed + "' has no host");
        }
        if (uri.getPort() == 0 || uri.getPort() > 65535) {
            throw new IllegalArgumentException(
                    "endpoint port (" + uri.getPort() + ") in '" + trimmed + "' must be in 1..65535");
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException("endpoint base URL '" + trimmed + "' must not contain a fragment (#...)");
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        path = path.replaceFirst("/{2,}$", "/"); // "/v1//" is "/v1/", as a single trailing slash is
        if (path.endsWith("/" + suffix + "/")) {
            path = path.substring(0, path.length() - 1);
        } else if (!path.endsWith("/" + suffix)) {
            path = (path.endsWith("/") ? path : path + "/") + suffix;
        }
        String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
        return URI.create(scheme + "://" + uri.getRawAuthority() + path + query);
    }

    /** The text of an unparseable base, unless it might hold credentials. */
    private static String shown(String base) {
        return base.contains("@") ? "<redacted: contains '@'>" : base;
    }
}
