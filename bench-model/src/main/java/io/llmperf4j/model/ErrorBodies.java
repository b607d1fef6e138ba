package io.llmperf4j.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.regex.Pattern;

/**
 * The server's own message in an error body, the one place that reads it: OpenAI's and Anthropic's
 * {@code {"error": {"message": ...}}}, a bare {@code {"error": "..."}}, a top-level {@code {"message": ...}} (older
 * vLLM's {@code {"object":"error","message":...}}), or an RFC 9457 problem ({@code application/problem+json}, which
 * gateways and Java/.NET servers send: {@code {"type","title","status","detail"}}).
 */
public final class ErrorBodies {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How much of a body without a server message a one-line error quotes. */
    public static final int BODY_CHARS = 120;
    /** A tag that says the body is markup: an HTML or XML element, a doctype or a comment. */
    private static final Pattern MARKUP = Pattern.compile("<(?:!DOCTYPE|html|head|body|title|h1|p|div|\\?xml|!--)\\b",
            Pattern.CASE_INSENSITIVE);
    /** Parts of a page that are not its words: the head (its title repeats the page's heading), scripts, styles. */
    private static final Pattern HIDDEN = Pattern.compile("(?is)<(head|script|style)\\b.*?</\\1\\s*>|<!--.*?-->");
    private static final Pattern TAG = Pattern.compile("<[^<>]*>");

    private ErrorBodies() {
    }

    /** The message of an {@code error} node (an object with {@code message}, or a string), or null when none. */
    public static String message(JsonNode error) {
        JsonNode message = error.isTextual() ? error : error.path("message");
        return message.isTextual() && !message.textValue().isBlank() ? message.textValue() : null;
    }

    /** The message of an error body as it came over the wire, or {@code body} itself when it holds none. */
    public static String serverMessage(String body) {
        JsonNode root = object(body);
        if (root == null) return body;
        String message = message(root.path("error"));
        if (message == null) message = message(root);
        if (message == null) message = problem(root);
        return message == null ? body : message;
    }

    /**
     * An error body for a one-line message: the server's own message ({@link #serverMessage}) on one line, at most
     * {@code messageChars}; or, when the body holds none (an HTML error page, plain text), its text without markup,
     * at most {@value #BODY_CHARS} characters: a page's markup and boilerplate would hide the hint that follows it.
     * Cut text ends in "...".
     */
    public static String oneLine(String body, int messageChars) {
        if (body == null) return "";
        String message = serverMessage(body);
        boolean bare = message.equals(body);
        String flat = (bare ? withoutMarkup(body) : message).replaceAll("\\s+", " ").strip();
        int limit = bare ? Math.min(BODY_CHARS, messageChars) : messageChars;
        // the server's text goes to the console and the warnings: an ANSI escape or a NUL in it must not act there
        return PrintableText.of(flat.length() <= limit ? flat : flat.substring(0, limit).stripTrailing() + "...");
    }

    /**
     * The text of an HTML page (its head, scripts and styles dropped, tags removed, common entities decoded), or
     * {@code body} as it is when it has no tags.
     */
    static String withoutMarkup(String body) {
        if (!MARKUP.matcher(body).find()) return body;
        String text = HIDDEN.matcher(body).replaceAll(" ");
        text = TAG.matcher(text).replaceAll(" ");
        return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#x27;", "'")
                .replace("&#39;", "'").replace("&nbsp;", " ").replace("&amp;", "&");
    }

    /**
     * An RFC 9457 problem's words, {@code "title: detail"} (either alone when the other is missing), or null when
     * {@code body} is not a JSON object with a {@code title} or a {@code detail}.
     */
    public static String problem(String body) {
        JsonNode root = object(body);
        return root == null ? null : problem(root);
    }

    /** The problem's {@code status} member (advisory, RFC 9457 3.1.2), or -1 when it has none. */
    public static int problemStatus(String body) {
        JsonNode root = object(body);
        JsonNode status = root == null ? null : root.get("status");
        return status != null && status.canConvertToInt() && status.isIntegralNumber() ? status.intValue() : -1;
    }

    private static String problem(JsonNode root) {
        String title = text(root.get("title"));
        String detail = text(root.get("detail"));
        if (title == null) return detail;
        return detail == null || detail.equals(title) ? title : title + ": " + detail;
    }

    private static String text(JsonNode node) {
        return node != null && node.isTextual() && !node.textValue().isBlank() ? node.textValue().strip() : null;
    }

    /** The body as a JSON object, or null when it is none (not JSON, an array, cut short). */
    private static JsonNode object(String body) {
        if (body == null) return null;
        String trimmed = body.strip();
        if (!trimmed.startsWith("{")) return null;
        try {
            JsonNode root = JSON.readTree(trimmed);
            return root != null && root.isObject() ? root : null;
        } catch (Exception notJson) {
            return null;
        }
    }
}
