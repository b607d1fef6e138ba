package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.model.SecretNames;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Removes credentials from failure messages. Our own messages never contain them, but a server may echo them, e.g.
 * a 401 body quoting the Authorization header, or a redirect's Location carrying the key, and it may echo only part
 * of one (QA: a 500 body quoting the key without its first 3 characters kept the other 16 verbatim). So every run of
 * {@value #FRAGMENT_CHARS} or more consecutive characters of a secret is redacted wherever it appears, the runs that
 * touch or overlap merged into one {@value #REDACTED}; a secret shorter than that only whole. A server may also escape
 * what it echoes: percent-encoded in a URL ({@code %2F} for {@code /}, a UTF-8 character as its bytes), JSON-escaped
 * in a body ({@code \/}, {@code \u002b}); the scan reads each escape as the character it stands for, so a key of
 * base64 characters (a cloud provider's) is found in any of those forms too. One scan over the message, each window
 * of {@value #FRAGMENT_CHARS} characters looked up in the set of the secrets' fragments. Values shorter than
 * {@value #MIN_SECRET_CHARS} characters are left alone: replacing them would mangle ordinary words.
 */
public final class Redactor {

    static final int MIN_SECRET_CHARS = 4;
    /** The shortest part of a secret redacted wherever it appears: shorter runs are ordinary text too often. */
    static final int FRAGMENT_CHARS = 8;
    static final String REDACTED = "[redacted]";

    /** Every run of {@value #FRAGMENT_CHARS} consecutive characters of each secret at least that long. */
    private final Set<String> fragments = new HashSet<>();
    /** Matched whole: secrets shorter than {@value #FRAGMENT_CHARS}, and a header's whole "Bearer ..." value. */
    private final List<String> wholes = new ArrayList<>();

    /** Redacts the API key and the values of extra headers whose names suggest a credential. */
    public Redactor(Secret apiKey, Map<String, String> extraHeaders) {
        add(apiKey.reveal());
        extraHeaders.forEach((name, value) -> {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.contains("auth") || n.contains("key") || n.contains("token") || n.contains("secret")) {
                if (value.regionMatches(true, 0, "Bearer ", 0, 7)) {
                    // the scheme's word goes with the credential, but its fragments ("Bearer t") are no secret
                    if (value.length() >= MIN_SECRET_CHARS) wholes.add(value);
                    add(value.substring(7).trim());
                } else {
                    add(value);
                }
            }
        });
    }

    private void add(String value) {
        if (value == null || value.length() < MIN_SECRET_CHARS) return;
        if (value.length() < FRAGMENT_CHARS) {
            wholes.add(value);
            return;
        }
        for (int i = 0; i + FRAGMENT_CHARS <= value.length(); i++) {
            fragments.add(value.substring(i, i + FRAGMENT_CHARS));
        }
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

    /** {@code message} with every secret, or part of one, replaced (see the class comment); null reads as "". */
    public String redact(String message) {
        if (message == null) return "";
        if (fragments.isEmpty() && wholes.isEmpty()) return message;
        Unescaped text = new Unescaped(message);
        String plain = text.chars.toString();
        boolean[] secret = new boolean[plain.length()];
        boolean any = false;
        for (int i = 0; i + FRAGMENT_CHARS <= plain.length(); i++) {
            if (fragments.contains(plain.substring(i, i + FRAGMENT_CHARS))) {
                Arrays.fill(secret, i, i + FRAGMENT_CHARS, true);
                any = true;
            }
        }
        for (String whole : wholes) {
            for (int at = plain.indexOf(whole); at >= 0; at = plain.indexOf(whole, at + 1)) {
                Arrays.fill(secret, at, at + whole.length(), true);
                any = true;
            }
        }
        if (!any) return message;
        StringBuilder out = new StringBuilder(message.length());
        for (int i = 0; i < secret.length; i++) {
            if (!secret[i]) {
                out.append(message, text.from[i], text.from[i + 1]);
            } else if (i == 0 || !secret[i - 1]) {
                out.append(REDACTED);
            }
        }
        return out.toString();
    }

    /**
     * A message with each escape a server may write a secret's character in read as that character: {@code %XX}
     * (the bytes of a UTF-8 character, in hex of either case), a backslash, "u" and four hex digits, and a backslash
     * before an ASCII character other than a letter or a digit ({@code \/}). Character {@code i} came from
     * {@code message[from[i], from[i + 1])}.
     */
    private static final class Unescaped {
        final StringBuilder chars;
        final int[] from;

        Unescaped(String message) {
            int n = message.length();
            chars = new StringBuilder(n);
            from = new int[n + 1];
            int i = 0;
            while (i < n) {
                int start = i;
                char c = message.charAt(i);
                int end = i + 1;
                char read = c;
                if (c == '%') {
                    int[] decoded = percentEncoded(message, i);
                    if (decoded != null) {
                        end = decoded[1];
                        if (Character.isBmpCodePoint(decoded[0])) {
                            read = (char) decoded[0];
                        } else { // a character beyond the BMP: its high surrogate stands for the whole escape
                            from[chars.length()] = start;
                            chars.append(Character.highSurrogate(decoded[0]));
                            start = end;
                            read = Character.lowSurrogate(decoded[0]);
                        }
                    }
                } else if (c == '\\' && i + 1 < n) {
                    char next = message.charAt(i + 1);
                    if (next == 'u' && i + 6 <= n && hex(message, i + 2, 4) >= 0) {
                        read = (char) hex(message, i + 2, 4);
                        end = i + 6;
                    } else if (next < 0x80 && !Character.isLetterOrDigit(next)) {
                        read = next;
                        end = i + 2;
                    }
                }
                from[chars.length()] = start;
                chars.append(read);
                i = end;
            }
            from[chars.length()] = n;
        }

        /** The code point of the UTF-8 bytes percent-encoded at {@code at} and where they end; null when none. */
        private static int[] percentEncoded(String s, int at) {
            int lead = byteAt(s, at);
            if (lead < 0) return null;
            int more = lead < 0x80 ? 0 : lead >= 0xF0 && lead < 0xF8 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : -1;
            if (more < 0) return null;
            int codePoint = more == 0 ? lead : lead & (0x3F >> more);
            for (int k = 1; k <= more; k++) {
                int b = byteAt(s, at + 3 * k);
                if (b < 0 || (b & 0xC0) != 0x80) return null;
                codePoint = codePoint << 6 | b & 0x3F;
            }
            return Character.isValidCodePoint(codePoint) ? new int[]{codePoint, at + 3 * (more + 1)} : null;
        }

        /** The byte {@code %XX} at {@code at} stands for, or -1. */
        private static int byteAt(String s, int at) {
            return at + 3 <= s.length() && s.charAt(at) == '%' ? hex(s, at + 1, 2) : -1;
        }

        /** The value of {@code digits} hex digits at {@code at}, or -1. */
        private static int hex(String s, int at, int digits) {
            int value = 0;
            for (int k = at; k < at + digits; k++) {
                int d = Character.digit(s.charAt(k), 16);
                if (d < 0) return -1;
                value = value << 4 | d;
            }
            return value;
        }
    }
}
