package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.InputStream;

import static io.llmperf4j.server.CompletionRequestParser.isAbsent;
import static io.llmperf4j.server.CompletionRequestParser.optionalBoolean;
import static io.llmperf4j.server.CompletionRequestParser.optionalText;
import static io.llmperf4j.server.CompletionRequestParser.readJson;
import static io.llmperf4j.server.InvalidRequestException.badRequest;

/**
 * Reads an Anthropic Messages body ({@code POST /v1/messages}) into a {@link CompletionRequest}. {@code max_tokens}
 * is required, as Anthropic requires it; {@code messages} must be a non-empty array whose contents are strings or
 * lists of blocks (the "text" of text blocks counts). The prompt text is the {@code system} prompt (when present)
 * and the message contents, joined by "\n", so a conversation seeds the same text as its chat-completions form
 * with a system message. Sampling fields, {@code stop_sequences}, tools and metadata are ignored.
 */
final class AnthropicRequestParser {

    CompletionRequest parse(InputStream body) throws InvalidRequestException {
        JsonNode root = readJson(body);
        if (!root.isObject()) throw badRequest("The request body must be a JSON object.", null);
        String model = optionalText(root, "model");
        boolean stream = optionalBoolean(root, "stream", false);
        JsonNode maxTokens = root.path("max_tokens");
        if (isAbsent(maxTokens)) throw badRequest("max_tokens: Field required", "max_tokens");
        if (!maxTokens.isIntegralNumber() || !maxTokens.canConvertToInt()) {
            throw badRequest("max_tokens (" + maxTokens + ") must be an integer.", "max_tokens");
        }
        if (maxTokens.intValue() < 1) throw badRequest("max_tokens (" + maxTokens + ") must be >= 1.", "max_tokens");
        if (maxTokens.intValue() > CompletionRequestParser.MAX_TOKENS_LIMIT) {
            throw badRequest("max_tokens (" + maxTokens + ") exceeds the simulator's limit ("
                    + CompletionRequestParser.MAX_TOKENS_LIMIT + ").", "max_tokens");
        }
        return new CompletionRequest(Endpoint.MESSAGES, model, stream, false, maxTokens.intValue(), promptText(root),
                -1, 0, false);
    }

    private static String promptText(JsonNode root) throws InvalidRequestException {
        JsonNode messages = root.path("messages");
        if (isAbsent(messages)) throw badRequest("messages: Field required", "messages");
        if (!messages.isArray() || messages.isEmpty()) {
            throw badRequest("messages must be a non-empty array.", "messages");
        }
        StringBuilder text = new StringBuilder();
        JsonNode system = root.path("system");
        boolean first = true;
        if (!isAbsent(system)) {
            appendContent(text, system, "system");
            first = false;
        }
        for (JsonNode message : messages) {
            if (!message.isObject()) throw badRequest("Each message must be an object.", "messages");
            if (!first) text.append('\n');
            first = false;
            appendContent(text, message.path("content"), "messages");
        }
        return text.toString();
    }

    private static void appendContent(StringBuilder text, JsonNode content, String field)
            throws InvalidRequestException {
        if (content.isTextual()) {
            text.append(content.textValue());
        } else if (content.isArray()) {
            for (JsonNode block : content) {
                if (block.path("text").isTextual()) text.append(block.path("text").textValue());
            }
        } else {
            throw badRequest(field + ": content must be a string or an array of content blocks.", field);
        }
    }
}
