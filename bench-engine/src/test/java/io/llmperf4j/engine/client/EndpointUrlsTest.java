package io.llmperf4j.engine.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

class EndpointUrlsTest {

    @ParameterizedTest
    @CsvSource({
            "http://host:8000/v1, http://host:8000/v1/chat/completions",
            "http://host:8000/v1/, http://host:8000/v1/chat/completions",
            "http://host:8000, http://host:8000/chat/completions",
            "http://host:8000/, http://host:8000/chat/completions",
            "https://api.example.com/openai/v1, https://api.example.com/openai/v1/chat/completions",
            "http://host:8000/v1/chat/completions, http://host:8000/v1/chat/completions",
            "http://host:8000/v1/chat/completions/, http://host:8000/v1/chat/completions",
            "http://host:8000/v1//, http://host:8000/v1/chat/completions",
            "http://host:8000/v1///, http://host:8000/v1/chat/completions",
            "http://host:8000/v1/chat/completions//, http://host:8000/v1/chat/completions",
            "HTTP://Host:8000/v1, http://Host:8000/v1/chat/completions",
            "'  http://host/v1  ', http://host/v1/chat/completions",
            "http://[::1]:8000/v1, http://[::1]:8000/v1/chat/completions",
            "https://x.azure.com/openai/deployments/d?api-version=2024-02-01, "
                    + "https://x.azure.com/openai/deployments/d/chat/completions?api-version=2024-02-01",
            "https://x.azure.com/openai/deployments/d/chat/completions?api-version=1, "
                    + "https://x.azure.com/openai/deployments/d/chat/completions?api-version=1"})
    void buildsTheChatCompletionsUrl(String base, String expected) {
        assertEquals(expected, EndpointUrls.chatCompletions(base).toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "''|endpoint base URL is empty; give one such as http://localhost:8000/v1 (llmperf's OPENAI_API_BASE)",
            "localhost:8000/v1|endpoint base URL 'localhost:8000/v1' must start with http:// or https://",
            "ftp://host/v1|endpoint scheme 'ftp' in 'ftp://host/v1' is not supported; use http or https",
            "http:///v1|endpoint base URL 'http:///v1' has no host",
            "http://host:99999/v1|endpoint port (99999) in 'http://host:99999/v1' must be in 1..65535",
            "http://host/v1#frag|endpoint base URL 'http://host/v1#frag' must not contain a fragment (#...)",
            "http://ho st/v1|endpoint base URL 'http://ho st/v1' is not a valid URL: Illegal character in authority"})
    void rejectsWithAClearMessage(String base, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EndpointUrls.chatCompletions(base));
        assertEquals(message, e.getMessage());
    }

    @Test
    void rejectsNull() {
        assertThrows(IllegalArgumentException.class, () -> EndpointUrls.chatCompletions(null));
    }

    @Test
    void credentialsInTheUrlAreRefusedWithoutEchoingThem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> EndpointUrls.chatCompletions("http://user:hunter2pass@host/v1"));
        assertFalse(e.getMessage().contains("hunter2pass"), e.getMessage());
        assertEquals("endpoint base URL must not contain credentials (user:password@); pass the API key separately",
                e.getMessage());
    }
}
