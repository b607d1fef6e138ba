package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.Secret;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A redirect's Location as a failure message shows it: absolute, without credentials. */
class RedactorLocationTest {

    private static final URI ENDPOINT = URI.create("http://gw.example:8080/v1/chat/completions?api-version=1");
    private final Redactor redactor = new Redactor(Secret.of("sk-the-run-key-123456"), Map.of());

    @Test
    void relativeTargetsAreMadeAbsoluteAgainstTheEndpoint() {
        assertEquals("http://gw.example:8080/v2/chat/completions", redactor.location(ENDPOINT, "/v2/chat/completions"));
        assertEquals("http://gw.example:8080/v1/chat/messages", redactor.location(ENDPOINT, "messages"));
    }

    @Test
    void userInfoAndSecretNamedQueryValuesAreDropped() {
        assertEquals("https://other.example/v1/chat/completions?api-version=2&api-key=[redacted]&sig=[redacted]"
                        + "&code=[redacted]&x_token=[redacted]",
                redactor.location(ENDPOINT, "https://user:pw@other.example/v1/chat/completions?api-version=2"
                        + "&api-key=abc123&sig=s1g&code=fn-key&x_token=t0k"));
    }

    /** QA: signed-URL and single-sign-on credentials were shown as they came. */
    @Test
    void signedUrlAndSingleSignOnCredentialsAreDropped() {
        assertEquals("https://sso.example/cb?jwt=[redacted]&session=[redacted]&ticket=[redacted]"
                        + "&SAMLResponse=[redacted]&Policy=[redacted]&Key-Pair-Id=K2&lang=en",
                redactor.location(ENDPOINT, "https://sso.example/cb?jwt=JWTSECRET&session=SESSSECRET"
                        + "&ticket=TICKETSECRET&SAMLResponse=SAMLSECRET&Policy=POLICYSECRET&Key-Pair-Id=K2&lang=en"));
    }

    @Test
    void theRunsKeyIsRedactedWherever() {
        assertEquals("https://h.example/v1/sk=[redacted]", redactor.location(ENDPOINT,
                "https://h.example/v1/sk=sk-the-run-key-123456"));
        assertEquals("not a url [redacted] %%", redactor.location(ENDPOINT, "not a url sk-the-run-key-123456 %%"));
    }
}
