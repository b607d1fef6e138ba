package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.model.SecretNames;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes credentials from failure messages. Our own messages never contain them, but a server may echo them, e.g.
 * a 401 body quoting the Authorization header, or a redirect's Location carrying the key. A server may escape the
 * key as it echoes it: percent-encoded in a URL ({@code %2F} for {@code /}), JSON-escaped in a body ({@code \/},
 * {@code \u002b}); a key of base64 characters (a cloud provider's) is then no longer its own text, so each of its
 * characters other than letters and digits is matched in any of those forms. Values shorter than
 * {@value #MIN_SECRET_CHARS} characters are left alone: replacing them would mangle ordinary words.
 */
public final class Redactor {

    static final int MIN_SECRET_CHARS = 4;
    static final String REDACTED = "[redacted]";

    private final List<String> secrets = new ArrayList<>();
    /** Per secret (same order), its text in any escaped form; null for a secret of letters and digits only. */
    private final List<Pattern> escaped = new ArrayList<>();

    /** Redacts the API key and the values of extra headers whose names suggest a credential. */
    public Redactor(Secret apiKey, Map<String, String> extraHeaders) {
        add(apiKey.reveal());
        extraHeaders.forEach((name, value) -> {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.contains("auth") || n.contains("key") || n.contains("token") || n.contains("secret")) {
                add(value);
                if (value.regionMatches(true, 0, "Bearer ", 0, 7)) add(value.substring(7).trim());
            }
        });
        secrets.sort((a, b) -> b.length() - a.length()); // longest first, so a key inside a header value goes whole
        for (String secret : secrets) escaped.add(escapedForms(secret));
    }

    /**
     * A pattern for {@code secret} with each character other than a letter or digit as itself, JSON-escaped
     * ({@code \/}, {@code \u002B}) or percent-encoded ({@code %2F}), hex digits in either case; null when the
     * secret has no such character (its text is its only form).
     */
    static Pattern escapedForms(String secret) {
        StringBuilder regex = new StringBuilder();
        boolean any = false;
        for (byte b : secret.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xFF;
            if (c < 0x80 && Character.isLetterOrDigit(c)) {
                regex.append((char) c);
                continue;
            }
            any = true;
            String hex = String.format("%02x", c);
            regex.append("(?:").append(Pattern.quote(String.valueOf((char) c)));
            if (c < 0x80) {
                regex.append("|\\\\").append(Pattern.quote(String.valueOf((char) c)))
                        .append("|\\\\u00(?i:").append(hex).append(')');
            }
            regex.append("|%(?i:").append(hex).append("))");
        }
        return any ? Pattern.compile(regex.toString()) : null;
    }

    private void add(String value) {
        if (value != null && value.length() >= MIN_SECRET_CHARS) secrets.add(value);
    }

    /**
     * A URL a server named (a redirect's Location), for a message: made absolute against {@code base}, its user-info
     * dropped, the values of secret-named query parameters ({@link SecretNames}: {@code api-key}, {@code token},
     * {@code sig}, ...) replaced, then {@link #redact}ed; text that is no URL is only {@link #redact}ed.
     */
    public String location(URI base, String location) {
        URI uri;
        try {
            uri = base.resolve(new URI(location.strip()));
        } catch (URISyntaxException | IllegalArgumentException e) {
            return redact(location);
        }
        if (uri.isOpaque() || uri.getScheme() == null || uri.getHost() == null) return redact(uri.toString());
        StringBuilder out = new StringBuilder(uri.getScheme()).append("://").append(uri.getHost());
        if (uri.getPort() >= 0) out.append(':').append(uri.getPort());
        if (uri.getRawPath() != null) out.append(uri.getRawPath());
        if (uri.getRawQuery() != null) {
            String[] pairs = uri.getRawQuery().split("&", -1);
            for (int i = 0; i < pairs.length; i++) {
                int eq = pairs[i].indexOf('=');
                if (eq >= 0 && SecretNames.matches(pairs[i].substring(0, eq))) {
                    pairs[i] = pairs[i].substring(0, eq + 1) + REDACTED;
                }
            }
            out.append('?').append(String.join("&", pairs));
        }
        return redact(out.toString());
    }

    public String redact(String message) {
        if (message == null) return "";
        String out = message;
        for (int i = 0; i < secrets.size(); i++) {
            String s = secrets.get(i);
            if (out.contains(s)) out = out.replace(s, REDACTED);
            Pattern forms = escaped.get(i);
            if (forms != null) out = forms.matcher(out).replaceAll(Matcher.quoteReplacement(REDACTED));
        }
        return out;
    }
}
