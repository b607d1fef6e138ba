package io.llmperf4j.report.summary;

import io.llmperf4j.model.SecretNames;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of result files. The engine already passes an endpoint without credentials; this is the
 * belt to its braces: user-info and secret-named query parameters are removed from URLs, metadata entries with a
 * secret-looking name are blanked, and anything shaped like an API key (OpenAI {@code sk-...}, HuggingFace
 * {@code hf_...}, AWS {@code AKIA...}, a JWT, a {@code Bearer} credential) is replaced by {@value #REDACTED}.
 */
public final class Redaction {

    /** What a removed secret is replaced by. */
    public static final String REDACTED = "[REDACTED]";

    private static final Pattern KEY_LIKE = Pattern.compile(
            "(?i)\\bBearer\\s+[A-Za-z0-9._~+/=-]{8,}"
                    + "|\\bsk-[A-Za-z0-9_-]{16,}"
                    + "|\\bhf_[A-Za-z0-9]{20,}"
                    + "|\\bAKIA[0-9A-Z]{16}\\b"
                    + "|\\beyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}");
    private static final Pattern USER_INFO = Pattern.compile("(?<=://)[^/?#@\\s]*@");

    private Redaction() {
    }

    /**
     * {@code url} without user-info ({@code https://user:pass@host} → {@code https://host}), with the values of
     * secret-named query parameters replaced, and with key-shaped text replaced; null stays null.
     */
    public static String endpoint(String url) {
        if (url == null) return null;
        String result;
        try {
            URI uri = new URI(url);
            String query = uri.getRawQuery() == null ? null : redactQuery(uri.getRawQuery());
            if (uri.isOpaque()) {
                result = url;
            } else {
                StringBuilder out = new StringBuilder();
                if (uri.getScheme() != null) out.append(uri.getScheme()).append(':');
                if (uri.getRawAuthority() != null) {
                    out.append("//");
                    if (uri.getHost() != null) {
                        out.append(uri.getHost().contains(":") && !uri.getHost().startsWith("[")
                                ? "[" + uri.getHost() + "]" : uri.getHost());
                        if (uri.getPort() >= 0) out.append(':').append(uri.getPort());
                    } else {
                        // a registry-based authority (e.g. a host name with "_"): drop everything up to its "@"
                        String authority = uri.getRawAuthority();
                        out.append(authority.substring(authority.lastIndexOf('@') + 1));
                    }
                }
                if (uri.getRawPath() != null) out.append(uri.getRawPath());
                if (query != null) out.append('?').append(query);
                if (uri.getRawFragment() != null) out.append('#').append(uri.getRawFragment());
                result = out.toString();
            }
        } catch (URISyntaxException e) {
            result = USER_INFO.matcher(url).replaceAll("");
        }
        return secrets(result);
    }

    /** {@code text} with every key-shaped substring replaced by {@value #REDACTED}; null stays null. */
    public static String secrets(String text) {
        if (text == null) return null;
        Matcher m = KEY_LIKE.matcher(text);
        return m.find() ? m.replaceAll(Matcher.quoteReplacement(REDACTED)) : text;
    }

    /** True when a metadata key or query parameter name suggests a secret ("api_key", "token", "x-api-key"). */
    public static boolean isSecretName(String name) {
        return SecretNames.matches(name);
    }

    /** User metadata with secret-named entries blanked and key-shaped values replaced; order kept. */
    public static Map<String, String> metadata(Map<String, String> metadata) {
        Map<String, String> out = new LinkedHashMap<>();
        metadata.forEach((k, v) -> out.put(k, isSecretName(k) ? REDACTED : secrets(v)));
        return out;
    }

    /**
     * A JSON-like value (Map, List, String, Number, Boolean, null) with key-shaped strings replaced at any depth.
     * Names are not judged here: sampling parameters such as {@code max_tokens} are not secrets.
     */
    public static Object jsonValue(Object value) {
        if (value instanceof String s) return secrets(s);
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            map.forEach((k, v) -> out.put(String.valueOf(k), jsonValue(v)));
            return out;
        }
        if (value instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            list.forEach(v -> out.add(jsonValue(v)));
            return out;
        }
        return value;
    }

    private static String redactQuery(String rawQuery) {
        String[] pairs = rawQuery.split("&", -1);
        for (int i = 0; i < pairs.length; i++) {
            int eq = pairs[i].indexOf('=');
            String name = eq < 0 ? pairs[i] : pairs[i].substring(0, eq);
            if (eq >= 0 && isSecretName(name)) pairs[i] = name + "=" + REDACTED;
        }
        return String.join("&", pairs);
    }
}
