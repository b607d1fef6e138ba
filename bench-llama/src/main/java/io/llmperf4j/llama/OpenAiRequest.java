package io.llmperf4j.llama;

import com.fasterxml.jackson.databind.JsonNode;
import de.kherud.llama.Pair;

import java.util.ArrayList;
import java.util.List;

/**
 * A validated chat or text completion request.
 *
 * @param chat         chat completions (else text completions)
 * @param model        the requested model id, or null
 * @param stream       SSE streaming or one JSON response
 * @param includeUsage {@code stream_options.include_usage}
 * @param generation   what the engine generates
 */
record OpenAiRequest(boolean chat, String model, boolean stream, boolean includeUsage,
                     LlamaEngine.Generation generation) {
    static final int DEFAULT_MAX_TOKENS = 256;

    /** A request the server refuses with a 400, naming the offending field. */
    static final class BadRequestException extends Exception {
        private static final long serialVersionUID = 1L;
        final String param;

        BadRequestException(String message, String param) {
            super(message, null, false, false);
            this.param = param;
        }
    }

    static OpenAiRequest parse(boolean chat, JsonNode root) throws BadRequestException {
        if (!root.isObject()) throw new BadRequestException("The request body must be a JSON object.", null);
        String model = root.path("model").isTextual() ? root.path("model").textValue() : null;
        boolean stream = root.path("stream").asBoolean(false);
        boolean includeUsage = root.path("stream_options").path("include_usage").asBoolean(false);
        JsonNode n = root.path("n");
        if (!absent(n) && n.asInt(-1) != 1) throw new BadRequestException("Only n = 1 is supported.", "n");
        int maxTokens = maxTokens(root);
        Float temperature = optionalFloat(root, "temperature");
        Float topP = optionalFloat(root, "top_p");
        Integer seed = root.path("seed").canConvertToInt() ? root.path("seed").intValue() : null;
        LlamaEngine.Generation generation;
        if (chat) {
            List<Pair<String, String>> messages = messages(root);
            StringBuilder system = new StringBuilder();
            int first = 0;
            for (; first < messages.size() && messages.get(first).getKey().equals("system"); first++) {
                if (first > 0) system.append('\n');
                system.append(messages.get(first).getValue());
            }
            List<Pair<String, String>> turns = messages.subList(first, messages.size());
            for (Pair<String, String> turn : turns) {
                String role = turn.getKey();
                if (!role.equals("user") && !role.equals("assistant")) {
                    throw new BadRequestException("Role '" + role + "' is not supported here: system messages come "
                            + "first, then user and assistant turns.", "messages");
                }
            }
            generation = new LlamaEngine.Generation(null, system.toString(), turns, maxTokens, temperature, topP, seed);
        } else {
            generation = new LlamaEngine.Generation(prompt(root), null, null, maxTokens, temperature, topP, seed);
        }
        return new OpenAiRequest(chat, model, stream, includeUsage, generation);
    }

    /** max_completion_tokens wins over max_tokens, as in vLLM; both must be >= 1 when given. */
    private static int maxTokens(JsonNode root) throws BadRequestException {
        for (String field : new String[] {"max_completion_tokens", "max_tokens"}) {
            JsonNode value = root.path(field);
            if (absent(value)) continue;
            if (!value.isIntegralNumber() || !value.canConvertToInt() || value.intValue() < 1) {
                throw new BadRequestException(field + " (" + value + ") must be an integer >= 1.", field);
            }
            return value.intValue();
        }
        return DEFAULT_MAX_TOKENS;
    }

    private static List<Pair<String, String>> messages(JsonNode root) throws BadRequestException {
        JsonNode messages = root.path("messages");
        if (!messages.isArray() || messages.isEmpty()) {
            throw new BadRequestException("messages must be a non-empty array.", "messages");
        }
        List<Pair<String, String>> pairs = new ArrayList<>();
        for (JsonNode message : messages) {
            String role = message.path("role").asText("user");
            JsonNode content = message.path("content");
            StringBuilder text = new StringBuilder();
            if (content.isTextual()) {
                text.append(content.textValue());
            } else if (content.isArray()) {
                for (JsonNode part : content) text.append(part.path("text").asText(""));
            } else if (!absent(content)) {
                throw new BadRequestException("A message content must be a string or an array of parts.", "messages");
            }
            pairs.add(new Pair<>(role, text.toString()));
        }
        return pairs;
    }

    /** A string, or a one-string array; token id prompts are not supported. */
    private static String prompt(JsonNode root) throws BadRequestException {
        JsonNode prompt = root.path("prompt");
        if (prompt.isArray() && prompt.size() == 1) prompt = prompt.get(0);
        if (!prompt.isTextual()) throw new BadRequestException("prompt must be a string.", "prompt");
        return prompt.textValue();
    }

    private static Float optionalFloat(JsonNode root, String field) throws BadRequestException {
        JsonNode value = root.path(field);
        if (absent(value)) return null;
        if (!value.isNumber()) throw new BadRequestException(field + " (" + value + ") must be a number.", field);
        return value.floatValue();
    }

    private static boolean absent(JsonNode value) {
        return value.isMissingNode() || value.isNull();
    }
}
