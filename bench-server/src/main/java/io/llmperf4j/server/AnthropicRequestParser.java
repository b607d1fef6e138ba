package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

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
            throw badRequest("max_tokens (" + maxTokens + ") exceeds the server's limit ("
                    + CompletionRequestParser.MAX_TOKENS_LIMIT + ").", "max_tokens");
        }
        List<GenerationRequest.ChatMessage> messages = messages(root);
        return new CompletionRequest(Endpoint.MESSAGES, model, stream, false, maxTokens.intValue(),
                CompletionRequestParser.joined(messages), -1, 0, false, messages,
                CompletionRequestParser.sampling(root), images(root.path("messages")));
    }

    /** The {@code system} prompt (when present) as a first "system" message, then the messages. */
    private static List<GenerationRequest.ChatMessage> messages(JsonNode root) throws InvalidRequestException {
        JsonNode messages = root.path("messages");
        if (isAbsent(messages)) throw badRequest("messages: Field required", "messages");
        if (!messages.isArray() || messages.isEmpty()) {
            throw badRequest("messages must be a non-empty array.", "messages");
        }
        List<GenerationRequest.ChatMessage> parsed = new ArrayList<>(messages.size() + 1);
        JsonNode system = root.path("system");
        if (!isAbsent(system)) parsed.add(new GenerationRequest.ChatMessage("system", content(system, "system")));
        for (JsonNode message : messages) {
            if (!message.isObject()) throw badRequest("Each message must be an object.", "messages");
            JsonNode role = message.path("role");
            parsed.add(new GenerationRequest.ChatMessage(role.isTextual() ? role.textValue() : "user",
                    content(message.path("content"), "messages")));
        }
        return parsed;
    }

    /**
     * The {@code image} blocks: {@code {"type":"image","source":{"type":"base64","media_type":...,"data":...}}} is
     * measured, a {@code "url"} source is not fetched (see {@link PromptImages}).
     */
    private static PromptImages images(JsonNode messages) throws InvalidRequestException {
        PromptImages images = PromptImages.NONE;
        for (JsonNode message : messages) {
            for (JsonNode block : message.path("content")) {
                if (!"image".equals(block.path("type").asText())) continue;
                JsonNode source = block.path("source");
                switch (source.path("type").asText()) {
                    case "base64" -> {
                        if (!source.path("data").isTextual()) throw badRequest("source.data must be a string.", "messages");
                        images = images.plusBase64(source.path("data").textValue(), 0, "messages");
                    }
                    case "url" -> images = images.plus(0, 0);
                    default -> throw badRequest("An image source must have type base64 or url.", "messages");
                }
            }
        }
        return images;
    }

    private static String content(JsonNode content, String field) throws InvalidRequestException {
        if (content.isTextual()) return content.textValue();
        if (content.isArray()) {
            StringBuilder text = new StringBuilder();
            for (JsonNode block : content) {
                if (block.path("text").isTextual()) text.append(block.path("text").textValue());
            }
            return text.toString();
        }
        throw badRequest(field + ": content must be a string or an array of content blocks.", field);
    }
}
