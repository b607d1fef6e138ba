package io.llmperf4j.engine.client.impl;

import io.llmperf4j.engine.client.Secret;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * QA (faults): a 500 body that echoed the key without its first 3 characters ({@code secret-ABC123XYZ789} of
 * {@code sk-secret-ABC123XYZ789}) was written verbatim to every result file; the redactor matched the whole key only.
 * Every run of 8 or more of a secret's characters is redacted now, in its escaped forms too, merged into one.
 */
class RedactorFragmentsTest {

    private static final Redactor OPENAI = new Redactor(Secret.of("sk-secret-ABC123XYZ789"), Map.of());
    private static final Redactor AZURE = new Redactor(Secret.of("AzKey/abc+def0123456789xyz=="), Map.of());

    @Test
    void aPartOfTheKeyOfEightCharactersOrMoreIsRedacted() {
        assertEquals("bare:[redacted] end", OPENAI.redact("bare:secret-ABC123XYZ789 end"));
        assertEquals("bare:[redacted]", AZURE.redact("bare:ey/abc+def0123456789xyz=="));
        assertEquals("head [redacted], tail [redacted]", OPENAI.redact("head sk-secret, tail ABC123XYZ789"));
        assertEquals("[redacted]", OPENAI.redact("sk-secret-ABC123XYZ789"), "the whole key, as before");
        assertEquals("[redacted]", OPENAI.redact("sk-secret-ABC123XYZ789secret-ABC"), "overlapping runs are one");
    }

    @Test
    void shorterRunsAndOtherTextStay() {
        assertEquals("ends in XYZ789, id sk-secr", OPENAI.redact("ends in XYZ789, id sk-secr"), "7 characters");
        String plain = "{\"error\":{\"message\":\"Rate limit exceeded\"}}";
        assertEquals(plain, OPENAI.redact(plain));
        Redactor shortKey = new Redactor(Secret.of("abc123"), Map.of());
        assertEquals("key [redacted], abc12 stays", shortKey.redact("key abc123, abc12 stays"),
                "a key shorter than 8 characters: only whole");
    }

    @Test
    void aPartInAnEscapedFormIsRedactedToo() {
        assertEquals("json=\"[redacted]\"", AZURE.redact("json=\"ey\\/abc\\u002bdef0123456789xyz==\""));
        assertEquals("url=[redacted]&x=1", AZURE.redact("url=Key%2Fabc%2Bdef0123&x=1"));
        assertEquals("Bearer%20[redacted]", OPENAI.redact("Bearer%20sk-secret-ABC123XYZ789"));
        Redactor accented = new Redactor(Secret.of("clé-secrète-0123456789"), Map.of());
        assertEquals("in a URL: [redacted]", accented.redact("in a URL: cl%C3%A9-secr%C3%A8te"));
        assertEquals("100% sure, \\n \\/ %zz", OPENAI.redact("100% sure, \\n \\/ %zz"), "other escapes stay as sent");
    }

    @Test
    void aCredentialHeaderIsRedactedInPartsToo() {
        Redactor r = new Redactor(Secret.none(), Map.of("Authorization", "Bearer tok-0123456789",
                "X-Api-Key", "azure-0123456789"));
        assertEquals("[redacted] / [redacted] / [redacted] / Bearer tomorrow", r.redact(
                "Bearer tok-0123456789 / -0123456789 / e-01234567 / Bearer tomorrow"));
    }
}
