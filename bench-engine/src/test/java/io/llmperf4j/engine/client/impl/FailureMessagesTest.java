package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.Secret;
import io.netty.channel.ConnectTimeoutException;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.security.cert.CertificateException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FailureMessagesTest {

    @Test
    void connectFailuresNameHostAndPort() {
        assertEquals("connect timed out after 500 ms to h:1",
                FailureMessages.connectFailure("h:1", new ConnectTimeoutException("x"), 500));
        assertEquals("cannot resolve the host of nohost.invalid:80: nohost.invalid",
                FailureMessages.connectFailure("nohost.invalid:80", new UnknownHostException("nohost.invalid"), 1));
        assertEquals("TLS handshake failed: PKIX path building failed (h:443)",
                FailureMessages.connectFailure("h:443", new RuntimeException(
                        new SSLHandshakeException("PKIX path building failed")), 1));
        SSLHandshakeException pkix = new SSLHandshakeException("PKIX path building failed: ...");
        pkix.initCause(new CertificateException("unable to find valid certification path to requested target"));
        assertEquals("TLS handshake failed: unable to find valid certification path to requested target (h:443)",
                FailureMessages.tlsHandshakeFailure("h:443", pkix), "the root cause is the telling part");
        assertEquals("connection to h:2 failed: Connection refused",
                FailureMessages.connectFailure("h:2", new ConnectException("Connection refused"), 1));
        assertEquals("connection to h:2 failed: ConnectException",
                FailureMessages.connectFailure("h:2", new ConnectException(), 1));
    }

    @Test
    void nativeTransportWordingIsLeftOutAndTheOperatingSystemsKept() {
        // Netty's epoll words errno so; these were in the console and error_msg (QA)
        assertEquals("Connection reset by peer", FailureMessages.describe(
                new java.io.IOException("recvAddress(..) failed with error(-104): Connection reset by peer")));
        assertEquals("Connection reset by peer", FailureMessages.describe(
                new java.io.IOException("readAddress(..) failed: Connection reset by peer")));
        assertEquals("connection to h:2 failed: Connection refused", FailureMessages.connectFailure("h:2",
                new ConnectException("finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:2"), 1));
        assertEquals("connection to h:2 failed: No route to host", FailureMessages.connectFailure("h:2",
                new ConnectException("finishConnect(..) failed: No route to host: localhost/127.0.0.1:2"), 1));
        assertEquals("connection reset by the server while streaming, after 4 events (h:1: Connection reset by peer)",
                FailureMessages.connectionLost("h:1", "while streaming, after 4 events", "Connection reset by peer"));
        assertEquals("connection to the server failed while reading the response body (h:1: Broken pipe)",
                FailureMessages.connectionLost("h:1", "while reading the response body", "Broken pipe"));
    }

    @Test
    void notAnEventStreamNamesTheTypeAndQuotesTheBody() {
        assertEquals("expected an event stream but got 'text/html' (a proxy's or gateway's page? check the base URL): "
                + "<p>log in</p>\\n", FailureMessages.notAnEventStream("text/html",
                "<p>log in</p>\n".getBytes(StandardCharsets.UTF_8)));
        assertEquals("expected an event stream but got a response without a Content-Type (a proxy's or gateway's "
                + "page? check the base URL): x", FailureMessages.notAnEventStream(null, new byte[]{'x'}));
    }

    @Test
    void aPlainTextAnswerToTheTlsHelloSaysUseHttpWithoutHexOrCertificateAdvice() {
        // Netty's words for the bytes of "HTTP/1.1 400 Bad Request\r\n..." where a TLS record was expected
        String hex = io.netty.buffer.ByteBufUtil.hexDump("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        assertEquals("TLS handshake failed: the server answered in plain HTTP, not TLS (h:443 sent 'HTTP/1.1 400 Bad "
                        + "Request'): use http://",
                FailureMessages.tlsHandshakeFailure("h:443", new io.netty.handler.codec.DecoderException(
                        new io.netty.handler.ssl.NotSslRecordException("not an SSL/TLS record: " + hex))));
        assertEquals("<!DOCTYPE HTML>", FailureMessages.plainTextAnswer("not an SSL/TLS record: "
                + io.netty.buffer.ByteBufUtil.hexDump("<!DOCTYPE HTML>\n<html>".getBytes(StandardCharsets.US_ASCII))));
        // binary bytes (another protocol's) are no plain answer: the record's own words stay
        assertEquals(null, FailureMessages.plainTextAnswer("not an SSL/TLS record: 00ff0102"));
        assertTrue(FailureMessages.tlsHandshakeFailure("h:443", new io.netty.handler.ssl.NotSslRecordException(
                "not an SSL/TLS record: 00ff0102")).startsWith("TLS handshake failed: not an SSL/TLS record: 00ff"));
    }

    @Test
    void closeAfterSendSaysTheRequestWasSentAndWhyItMayHaveHappened() {
        assertEquals("connection closed after the request was sent, before any response byte (h:1: Connection reset)"
                        + "; it was a reused keep-alive connection, so the server may have closed it as idle just as"
                        + " the request went out",
                FailureMessages.closedAfterSend("h:1", "Connection reset", true));
        assertEquals("connection closed after the request was sent, before any response byte (h:1)",
                FailureMessages.closedAfterSend("h:1", null, false));
        assertEquals("request timeout of 250 ms exceeded while waiting for a connection to h:1",
                FailureMessages.requestTimeout(250, "while waiting for a connection to h:1"));
    }

    @Test
    void excerptIsShortAndOnOneLine() {
        assertEquals("{\"a\":\\n1}", FailureMessages.excerpt("{\"a\":\n1}".getBytes(StandardCharsets.UTF_8)));
        String longText = "x".repeat(500);
        assertEquals("x".repeat(FailureMessages.EXCERPT_CHARS) + "...",
                FailureMessages.excerpt(longText.getBytes(StandardCharsets.UTF_8)));
        assertEquals("", FailureMessages.excerpt(new byte[0]));
        // control characters read as escapes, the same as everywhere server text is quoted (PrintableText)
        assertEquals("a\\x1b[2Jb\\x7f\\u202ec", FailureMessages.excerpt("a\u001b[2Jb\u007f\u202ec"
                .getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void redactorRemovesTheKeyAndCredentialHeaders() {
        Redactor r = new Redactor(Secret.of("sk-abcdef"), Map.of("api-key", "azure-123456", "X-Tenant", "bench",
                "Authorization", "Bearer tok-987654"));
        assertEquals("bad key [redacted] / [redacted] / [redacted] / bench",
                r.redact("bad key sk-abcdef / azure-123456 / Bearer tok-987654 / bench"));
        assertEquals("", r.redact(null));
        assertEquals("EMPTY keys of 3 chars stay: abc", new Redactor(Secret.of("abc"), Map.of())
                .redact("EMPTY keys of 3 chars stay: abc"));
    }
}
