package io.llmperf4j.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

import static io.llmperf4j.server.InvalidRequestException.badRequest;

/**
 * Reads a chat or text completion body into a {@link CompletionRequest}. Lenient where vLLM is (unknown fields
 * and sampling parameters are ignored), strict where the simulation would otherwise lie (n > 1, batched prompts).
 */
final class CompletionRequestParser {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** Plays the part of a model's context length: a non-streaming response is built in memory. */
    static final int MAX_TOKENS_LIMIT = 1_000_000;

    private final int defaultMaxTokens;

    CompletionRequestParser(int defaultMaxTokens) {
        this.defaultMaxTokens = defaultMaxTokens;
    }

    CompletionRequest parse(Endpoint endpoint, InputStream body) throws InvalidRequestException {
        JsonNode root = readJson(body);
        if (!root.isObject()) throw badRequest("The request body must be a JSON object.", null);

        String model = optionalText(root, "model");
        boolean stream = optionalBoolean(root, "stream", false);
        JsonNode streamOptions = root.path("stream_options");
        boolean includeUsage = streamOptions.isObject() && optionalBoolean(streamOptions, "include_usage", false);
        int maxTokens = maxTokens(root);
        JsonNode n = root.path("n");
        if (!isAbsent(n) && !(n.canConvertToInt() && n.intValue() == 1)) {
            throw badRequest("n (" + n + ") is not supported; only n = 1 is.", "n");
        }
        boolean ignoreEos = optionalBoolean(root, "ignore_eos", false);
        int minTokens = minTokens(root, maxTokens);
        CompletionRequest.Sampling sampling = sampling(root);
        if (endpoint == Endpoint.CHAT) {
            List<GenerationRequest.ChatMessage> messages = chatMessages(root);
            return new CompletionRequest(endpoint, model, stream, includeUsage, maxTokens, joined(messages), -1,
                    minTokens, ignoreEos, messages, sampling, images(root.path("messages")));
        }
        JsonNode prompt = textPrompt(root);
        boolean ids = prompt.isArray();
        return new CompletionRequest(Endpoint.TEXT, model, stream, includeUsage, maxTokens,
                ids ? prompt.toString() : prompt.textValue(), ids ? prompt.size() : -1, minTokens, ignoreEos, null,
                sampling);
    }

    /**
     * temperature, top_p, seed and stop; a value of the wrong type is a 400 naming the field (a client that sends
     * {@code "temperature": "hot"} learns it was not applied). Other sampling fields are ignored.
     */
    static CompletionRequest.Sampling sampling(JsonNode root) throws InvalidRequestException {
        return new CompletionRequest.Sampling(optionalNumber(root, "temperature"), optionalNumber(root, "top_p"),
                optionalInt(root, "seed"), stop(root));
    }

    private static Double optionalNumber(JsonNode root, String field) throws InvalidRequestException {
        JsonNode value = root.path(field);
        if (isAbsent(value)) return null;
        if (!value.isNumber()) throw badRequest(field + " (" + value + ") must be a number.", field);
        return value.doubleValue();
    }

    private static Integer optionalInt(JsonNode root, String field) throws InvalidRequestException {
        JsonNode value = root.path(field);
        if (isAbsent(value)) return null;
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw badRequest(field + " (" + value + ") must be an integer.", field);
        }
        return value.intValue();
    }

    /** OpenAI's stop: a string or a list of strings, none of them empty. */
    private static List<String> stop(JsonNode root) throws InvalidRequestException {
        JsonNode value = root.path("stop");
        if (isAbsent(value)) return List.of();
        String wrongType = "stop (" + value + ") must be a string or a list of strings.";
        List<String> stops = new ArrayList<>();
        if (value.isTextual()) {
            stops.add(value.textValue());
        } else if (value.isArray()) {
            for (JsonNode item : value) {
                if (!item.isTextual()) throw badRequest(wrongType, "stop");
                stops.add(item.textValue());
            }
        } else {
            throw badRequest(wrongType, "stop");
        }
        if (stops.contains("")) throw badRequest("stop (" + value + ") must not hold an empty string.", "stop");
        return stops;
    }

    /** The message contents joined by "\n": the text the simulator's answer is seeded with. */
    static String joined(List<GenerationRequest.ChatMessage> messages) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < messages.size(); i++) {
            if (i > 0) text.append('\n');
            text.append(messages.get(i).content());
        }
        return text.toString();
    }

    /** vLLM's min_tokens: an integer in [0, max_tokens]. */
    private static int minTokens(JsonNode root, int maxTokens) throws InvalidRequestException {
        Integer value = optionalInt(root, "min_tokens");
        if (value == null) return 0;
        if (value < 0) throw badRequest("min_tokens (" + value + ") must be >= 0.", "min_tokens");
        if (value > maxTokens) {
            throw badRequest("min_tokens (" + value + ") must be <= max_tokens (" + maxTokens + ").", "min_tokens");
        }
        return value;
    }

    static JsonNode readJson(InputStream body) throws InvalidRequestException {
        try {
            JsonNode root = MAPPER.readTree(body);
            if (root == null || root.isMissingNode()) throw badRequest("The request body is empty.", null);
            return root;
        } catch (JsonProcessingException e) {
            throw badRequest("The request body is not valid JSON: " + e.getOriginalMessage(), null);
        } catch (IOException e) {
            throw badRequest("The request body could not be read: " + e.getMessage(), null);
        }
    }

    /** max_completion_tokens wins over max_tokens, as in vLLM; both must be >= 1 when given. */
    private int maxTokens(JsonNode root) throws InvalidRequestException {
        for (String field : new String[] {"max_completion_tokens", "max_tokens"}) {
            Integer value = optionalInt(root, field);
            if (value == null) continue;
            if (value < 1) throw badRequest(field + " (" + value + ") must be >= 1.", field);
            if (value > MAX_TOKENS_LIMIT) {
                throw badRequest(field + " (" + value + ") exceeds the server's limit (" + MAX_TOKENS_LIMIT + ").",
                        field);
            }
            return value;
        }
        return defaultMaxTokens;
    }

    /**
     * The messages, each with its role ("user" when it has none) and its text; a content may be a string or a list
     * of parts with "text".
     */
    private static List<GenerationRequest.ChatMessage> chatMessages(JsonNode root) throws InvalidRequestException {
        JsonNode messages = root.path("messages");
        if (isAbsent(messages)) throw badRequest("messages is required.", "messages");
        if (!messages.isArray() || messages.isEmpty()) {
            throw badRequest("messages must be a non-empty array.", "messages");
        }
        List<GenerationRequest.ChatMessage> parsed = new ArrayList<>(messages.size());
        for (JsonNode message : messages) {
            if (!message.isObject()) throw badRequest("Each message must be an object.", "messages");
            JsonNode content = message.path("content");
            StringBuilder text = new StringBuilder();
            if (content.isTextual()) {
                text.append(content.textValue());
            } else if (content.isArray()) {
                for (JsonNode part : content) {
                    if (part.path("text").isTextual()) text.append(part.path("text").textValue());
                }
            } else if (!isAbsent(content)) {
                throw badRequest("A message content must be a string or an array of parts.", "messages");
            }
            JsonNode role = message.path("role");
            String roleName = role.isTextual() ? role.textValue() : "user";
            parsed.add(new GenerationRequest.ChatMessage(roleName, text.toString()));
        }
        return parsed;
    }

    /**
     * The {@code image_url} parts of the messages ({@code {"type":"image_url","image_url":{"url":...}}}, the url
     * also accepted as a bare string), measured as {@link PromptImages} says.
     */
    static PromptImages images(JsonNode messages) throws InvalidRequestException {
        PromptImages images = PromptImages.NONE;
        for (JsonNode message : messages) {
            for (JsonNode part : message.path("content")) {
                if (!"image_url".equals(part.path("type").asText())) continue;
                JsonNode image = part.path("image_url");
                JsonNode url = image.isObject() ? image.path("url") : image;
                if (!url.isTextual()) throw badRequest("image_url.url must be a string.", "messages");
                images = images.plusUrl(url.textValue(), "messages");
            }
        }
        return images;
    }

    /** One prompt: a string, a one-string array, token ids, or one array of token ids; returns the string or ids. */
    private static JsonNode textPrompt(JsonNode root) throws InvalidRequestException {
        JsonNode prompt = root.path("prompt");
        if (isAbsent(prompt)) throw badRequest("prompt is required.", "prompt");
        if (prompt.isArray() && prompt.size() == 1 && (prompt.get(0).isTextual() || prompt.get(0).isArray())) {
            prompt = prompt.get(0);
        }
        if (prompt.isTextual()) return prompt;
        if (prompt.isArray() && !prompt.isEmpty()) {
            for (JsonNode id : prompt) {
                if (!id.isIntegralNumber()) {
                    throw badRequest("prompt must be a string or token ids; batched prompts are not supported.",
                            "prompt");
                }
            }
            return prompt;
        }
        throw badRequest("prompt must be a non-empty string or array of token ids.", "prompt");
    }

    static String optionalText(JsonNode node, String field) throws InvalidRequestException {
        JsonNode value = node.path(field);
        if (isAbsent(value)) return null;
        if (!value.isTextual()) throw badRequest(field + " must be a string.", field);
        return value.textValue();
    }

    static boolean optionalBoolean(JsonNode node, String field, boolean absent) throws InvalidRequestException {
        JsonNode value = node.path(field);
        if (isAbsent(value)) return absent;
        if (!value.isBoolean()) throw badRequest(field + " (" + value + ") must be a boolean.", field);
        return value.booleanValue();
    }

    static boolean isAbsent(JsonNode value) {
        return value.isMissingNode() || value.isNull();
    }
}
