package io.llmperf4j.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the HTML report's parameter tables: the value of a row by its heading, unescaped. */
final class HtmlRows {
    private HtmlRows() {
    }

    /** The first row headed {@code key}, or null when the page has none. */
    static String value(String html, String key) {
        Matcher m = Pattern.compile("<tr><th scope=\"row\">" + Pattern.quote(escape(key)) + "</th><td>(.*?)</td></tr>")
                .matcher(html);
        return m.find() ? unescape(m.group(1)) : null;
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String unescape(String text) {
        return text.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&");
    }
}
