package io.llmperf4j.engine.client.impl;

import io.llmperf4j.model.ErrorBodies;
import io.llmperf4j.model.PrintableText;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.ssl.NotSslRecordException;

import javax.net.ssl.SSLException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Pattern;

/** Wording of failure messages, in one place. Messages name host:port, never credentials. */
public final class FailureMessages {

    static final int EXCERPT_CHARS = 120;
    /** A problem's title and detail are the server's whole message: longer than a raw excerpt. */
    static final int PROBLEM_CHARS = 300;
    /**
     * Netty's native transport words an errno as {@code "recvAddress(..) failed with error(-104): Connection reset by
     * peer"} (older versions {@code "readAddress(..) failed: ..."}); only the operating system's text means anything
     * to a user.
     */
    private static final Pattern NATIVE_CALL = Pattern.compile("^\\w+\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?: ");
    /** Netty's connect exceptions append {@code ": /127.0.0.1:8000"}; the message names host:port already. */
    private static final Pattern ADDRESS_SUFFIX = Pattern.compile(": [^ ]*/[^ /]+:\\d+$");

    /**
     * The start of {@link #tlsHandshakeFailure}'s words for a server that answered the TLS hello in plain text (an
     * http:// port reached with https://); the pre-run check and doctor look for it.
     */
    public static final String PLAIN_HTTP_ANSWER = "the server answered in plain HTTP, not TLS";
    /** The start of {@link #tlsAnswer}'s words: the pre-run check looks for it. */
    public static final String TLS_ANSWER = "the server answered in TLS, not plain HTTP";
    /** The start of {@link #closedAfterSend}: the server ended the connection without a response byte. */
    public static final String CLOSED_WITHOUT_ANSWER = "connection closed after the request was sent, before any "
            + "response byte";
    private static final String SEND_FAILED = "sending the request to ";
    /** Netty's NotSslRecordException words: {@code "not an SSL/TLS record: 485454..."} (the bytes in hex). */
    private static final Pattern NOT_SSL_HEX = Pattern.compile("not an SSL/TLS record: ([0-9a-fA-F]+)");
    /** How much of a plain-text answer to a TLS hello is quoted: its first line, at most this long. */
    private static final int PLAIN_ANSWER_CHARS = 60;

    private FailureMessages() {
    }

    /** Why the TCP connection could not be made. */
    public static String connectFailure(String hostAndPort, Throwable cause, long connectTimeoutMillis) {
        Throwable root = rootCause(cause);
        if (cause instanceof ConnectTimeoutException || root instanceof ConnectTimeoutException) {
            return "connect timed out after " + connectTimeoutMillis + " ms to " + hostAndPort;
        }
        if (root instanceof UnknownHostException) {
            return "cannot resolve the host of " + hostAndPort + ": " + describe(root);
        }
        if (root instanceof SSLException || cause instanceof SSLException) {
            return tlsHandshakeFailure(hostAndPort, cause);
        }
        return "connection to " + hostAndPort + " failed: " + describe(root);
    }

    /**
     * Why the TLS handshake failed (untrusted certificate, name mismatch, handshake timeout, closed during it). The
     * root cause is the telling part: "PKIX path building failed" wraps "unable to find valid certification path".
     */
    public static String tlsHandshakeFailure(String hostAndPort, Throwable cause) {
        Throwable root = rootCause(cause);
        String plain = root instanceof NotSslRecordException ? plainTextAnswer(root.getMessage()) : null;
        if (plain != null) {
            // an http:// port: its bytes are text, not a TLS record; the hex and certificate advice would mislead
            return "TLS handshake failed: " + PLAIN_HTTP_ANSWER + " (" + hostAndPort + " sent '" + plain
                    + "'): use http://";
        }
        return "TLS handshake failed: " + describe(root) + " (" + hostAndPort + ")";
    }

    /**
     * The first line of the bytes a NotSslRecordException quotes in hex when they are printable text (an HTTP status
     * line, an HTML page), or null when they are not: a TLS record starts with a byte below 0x20.
     */
    static String plainTextAnswer(String notSslMessage) {
        if (notSslMessage == null) return null;
        java.util.regex.Matcher hex = NOT_SSL_HEX.matcher(notSslMessage);
        if (!hex.find()) return null;
        String digits = hex.group(1);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i + 1 < digits.length() && text.length() < PLAIN_ANSWER_CHARS; i += 2) {
            char c = (char) Integer.parseInt(digits.substring(i, i + 2), 16);
            if (c == '\r' || c == '\n') break;
            if (c < 0x20 && c != '\t' || c > 0x7e) return text.length() >= 4 ? text.toString() : null;
            text.append(c);
        }
        String line = text.toString().strip();
        return line.isEmpty() ? null : line;
    }

    /**
     * Whether {@code firstByte}, the first byte of a plain-HTTP connection's answer, is a TLS record's content type
     * (0x14-0x17: change cipher spec, alert, handshake, application data): no HTTP response starts so.
     */
    public static boolean isTlsRecordType(int firstByte) {
        return firstByte >= 0x14 && firstByte <= 0x17;
    }

    /** A plain-HTTP request answered with a TLS record (an alert): the port serves TLS. */
    public static String tlsAnswer(String hostAndPort) {
        return TLS_ANSWER + " (" + hostAndPort + " sent a TLS record): use https://";
    }

    /**
     * Whether a CONNECTION_CLOSED message says the server ended the connection before any byte of a response (after
     * the request was sent, or while it was being written on a new connection).
     */
    public static boolean closedWithoutAnswer(String message) {
        return message != null && (message.startsWith(CLOSED_WITHOUT_ANSWER) || message.startsWith(SEND_FAILED));
    }

    /**
     * The connection ended after every byte of the request was written and before the response head: the server may
     * have processed the request, so it is recorded, never re-sent.
     *
     * @param detail       the I/O error, or null for a plain close
     * @param servedBefore the connection carried an earlier response (one only preconnected has not: its close is
     *                     no keep-alive race)
     */
    public static String closedAfterSend(String hostAndPort, String detail, boolean servedBefore) {
        return CLOSED_WITHOUT_ANSWER + " (" + hostAndPort + (detail == null ? "" : ": " + detail) + ")"
                + (servedBefore ? "; it was a reused keep-alive connection, so the server may have closed it as idle"
                + " just as the request went out" : "");
    }

    /** The request could not be written; the server cannot have received all of it. */
    public static String sendFailed(String hostAndPort, String detail) {
        return SEND_FAILED + hostAndPort + " failed: " + detail;
    }

    /**
     * The whole request outlived its limit.
     *
     * @param where what the request was doing, e.g. "while waiting for a connection to h:1"
     */
    public static String requestTimeout(long limitMillis, String where) {
        return "request timeout of " + limitMillis + " ms exceeded " + where;
    }

    /**
     * The message of a throwable, short, or its class name when it has none; a native transport's call and errno
     * number ({@code recvAddress(..) failed with error(-104): }) and an appended address are left out, the
     * operating system's text ({@code Connection reset by peer}) is kept.
     */
    public static String describe(Throwable t) {
        String message = t.getMessage();
        if (message == null || message.isBlank()) return t.getClass().getSimpleName();
        String plain = ADDRESS_SUFFIX.matcher(NATIVE_CALL.matcher(message.strip()).replaceFirst("")).replaceFirst("");
        return plain.isBlank() ? message : plain;
    }

    /**
     * The connection broke after the response began: a reset is the server's (or a proxy's) doing and is called so.
     *
     * @param during what the request was doing, e.g. "while streaming, after 4 events"
     * @param detail the I/O error, as {@link #describe} words it
     */
    public static String connectionLost(String hostAndPort, String during, String detail) {
        boolean reset = detail.toLowerCase(Locale.ROOT).contains("connection reset");
        return (reset ? "connection reset by the server " : "connection to the server failed ") + during + " ("
                + hostAndPort + ": " + detail + ")";
    }

    /**
     * The connection ended a stream before its body's end: a chunked body before its last chunk, or a body that ends
     * with the connection inside an event (its last line or event unfinished; a body shorter than its Content-Length
     * says so, {@link #closedShortOfLength}),
     * e.g. "connection closed by host:port mid-stream after 4 events, part-way through the next one".
     *
     * @param events      the whole events received
     * @param insideEvent the close came part-way through an event
     */
    public static String closedMidStream(String hostAndPort, int events, boolean insideEvent) {
        return "connection closed by " + hostAndPort + " mid-stream after " + events + " event" + (events == 1 ? "" : "s")
                + (insideEvent ? ", part-way through the next one" : "");
    }

    /**
     * A stream whose body ended by its framing (its last chunk, its whole Content-Length) part-way through an event:
     * the server cut the event short, e.g. "the response body from host:port ended part-way through an event, after
     * 13 whole events".
     *
     * @param events the whole events received
     */
    public static String bodyEndedMidEvent(String hostAndPort, int events) {
        return "the response body from " + hostAndPort + " ended part-way through an event, after " + events
                + " whole event" + (events == 1 ? "" : "s");
    }

    /**
     * A body whose connection closed before its Content-Length was reached, e.g. "the server (host:port) closed the
     * connection after 812 of the 2,048 bytes its Content-Length announced": the client cannot have the whole
     * response, whatever the bytes so far held.
     */
    public static String closedShortOfLength(String hostAndPort, long received, long announced) {
        return String.format(Locale.ROOT, "the server (%s) closed the connection after %,d of the %,d bytes its "
                + "Content-Length announced", hostAndPort, received, announced);
    }

    /**
     * A stream cut so ({@link #closedShortOfLength(String, long, long)}), with the events it held, as
     * {@link #closedMidStream} says them: "..., mid-stream after 2 events".
     */
    public static String closedShortOfLength(String hostAndPort, long received, long announced, int events,
                                             boolean insideEvent) {
        return closedShortOfLength(hostAndPort, received, announced) + ", mid-stream after " + events + " event"
                + (events == 1 ? "" : "s") + (insideEvent ? ", part-way through the next one" : "");
    }

    /**
     * A body that ends with the connection (no length, no chunking) ended between events without the stream's end
     * event and without a finish reason: the client cannot tell a server that stopped from an API that never ends its
     * streams, so the message says both.
     *
     * @param endOfStream the API's end event, e.g. "data: [DONE]"
     */
    public static String closedWithoutEnd(String hostAndPort, int events, String endOfStream) {
        return "the server (" + hostAndPort + ") closed the connection after " + events + " event"
                + (events == 1 ? "" : "s") + " without " + endOfStream + " or a finish reason: it stopped (crash, "
                + "restart?) or its API does not end streams";
    }

    /**
     * A 200 to a streamed request whose type is not an event stream and that held none: often a proxy's login or
     * error page.
     *
     * @param contentType the response's Content-Type, or null when it had none
     */
    public static String notAnEventStream(String contentType, byte[] body) {
        String got = "expected an event stream but got " + (contentType == null ? "a response without a Content-Type"
                : "'" + contentType + "'");
        String problem = problem(body);
        if (problem != null) return got + " (a proxy's or gateway's error? check the base URL): " + problem;
        return got + " (a proxy's or gateway's page? check the base URL)"
                + (body.length == 0 ? " with an empty body" : ": " + excerpt(body));
    }

    /**
     * A whole (non-streaming) 200 body that is an RFC 9457 problem instead of the API's answer, as a stream's is
     * worded ({@link #notAnEventStream}): e.g. "expected the API's response but got a problem in
     * 'application/problem+json' (a proxy's or gateway's error? check the base URL): Service Unavailable: the model
     * is loading (status 503 in the body)".
     *
     * @param contentType the response's Content-Type, or null when it had none
     * @param problem     the problem's words ({@link #problem(byte[])})
     */
    public static String problemInsteadOfResponse(String contentType, String problem) {
        return "expected the API's response but got a problem" + (contentType == null ? "" : " in '" + contentType
                + "'") + " (a proxy's or gateway's error? check the base URL): " + problem;
    }

    /**
     * An RFC 9457 problem's words ({@code application/problem+json}: title, detail and the status it names, e.g.
     * "Service Unavailable: the model is loading (status 503 in the body)"), on one line, or null when {@code body}
     * is not a problem.
     */
    public static String problem(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        String words = ErrorBodies.problem(text);
        if (words == null) return null;
        int status = ErrorBodies.problemStatus(text);
        return excerpt(words.getBytes(StandardCharsets.UTF_8), PROBLEM_CHARS)
                + (status > 0 ? " (status " + status + " in the body)" : "");
    }

    /**
     * A 3xx answer: "HTTP 308 redirect to https://host/v2/chat/completions (the client does not follow redirects:
     * point OPENAI_API_BASE at https://host/v2)". A timing tool does not follow one: the hop would hide in the
     * request's time.
     *
     * @param location     the Location header made absolute and without credentials ({@link Redactor#location}), or
     *                     null when the answer had none
     * @param baseVariable the environment variable that holds the API base, e.g. {@code OPENAI_API_BASE}
     * @param base         the API base the Location belongs to ({@code EndpointUrls.baseOf}), null when its path is
     *                     not the API's
     */
    public static String redirect(int status, String location, String baseVariable, String base) {
        if (location == null) {
            return "HTTP " + status + " redirect without a Location header (the client does not follow redirects: "
                    + "check " + baseVariable + ")";
        }
        return "HTTP " + status + " redirect to " + location + " (the client does not follow redirects: point "
                + baseVariable + (base == null ? " where the server serves the API)" : " at " + base + ")");
    }

    /**
     * A response in a content coding the client does not decode (it decodes gzip and deflate; it asks for none, so
     * this is a server or gateway that compresses regardless), e.g. "the response from host:port is compressed
     * (Content-Encoding: br), which the client does not decode: turn compression off for this endpoint".
     */
    public static String undecodedEncoding(String hostAndPort, int status, String encoding) {
        return (status == 200 ? "the response" : "the HTTP " + status + " response") + " from " + hostAndPort
                + " is compressed (Content-Encoding: " + encoding + "), which the client does not decode (it "
                + "decodes gzip and deflate): turn compression off for this endpoint at the server or gateway";
    }

    /**
     * A body whose bytes are not in the coding its header claims, e.g. "the response from host:port said
     * Content-Encoding: gzip but its body is not gzip data (Input is not in the GZIP format)": the server's or a
     * gateway's fault, not the client's.
     *
     * @param coding the Content-Encoding, or null when it is not known
     * @param detail the decoder's words
     */
    public static String undecodableBody(String hostAndPort, int status, String coding, String detail) {
        String response = (status == 200 ? "the response" : "the HTTP " + status + " response") + " from " + hostAndPort;
        if (coding == null) return response + " has a compressed body that could not be decoded (" + detail + ")";
        String name = coding.strip().toLowerCase(Locale.ROOT);
        if (name.startsWith("x-")) name = name.substring(2);
        return response + " said Content-Encoding: " + coding.strip() + " but its body is not " + name + " data ("
                + detail + ")";
    }

    public static Throwable rootCause(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root;
    }

    /** The first {@value #EXCERPT_CHARS} characters of UTF-8 bytes, control characters escaped, on one line. */
    public static String excerpt(byte[] data) {
        return excerpt(data, EXCERPT_CHARS);
    }

    private static String excerpt(byte[] data, int chars) {
        int take = Math.min(data.length, chars * 4);
        String text = new String(data, 0, take, StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        int i = 0;
        for (; i < text.length() && out.length() < chars; i++) {
            char c = text.charAt(i);
            String escaped = PrintableText.escape(c);
            if (escaped == null) out.append(c);
            else out.append(escaped);
        }
        if (i < text.length() || take < data.length) out.append("...");
        return out.toString();
    }
}
