package io.llmperf4j.engine.testserver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;

/** vLLM-like chat completion chunks, as JSON text. */
public final class Streams {

    public static final String RESPONSE_ID = "chatcmpl-test-42";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Streams() {
    }

    public static String role() {
        ObjectNode delta = JSON.createObjectNode().put("role", "assistant").put("content", "");
        return chunk(delta, null);
    }

    public static String content(String text) {
        return chunk(JSON.createObjectNode().put("content", text), null);
    }

    public static String finish(String reason) {
        return chunk(JSON.createObjectNode().put("content", ""), reason);
    }

    public static String usage(int prompt, int completion) {
        ObjectNode root = base();
        root.putArray("choices");
        root.putObject("usage").put("prompt_tokens", prompt).put("completion_tokens", completion)
                .put("total_tokens", prompt + completion);
        return root.toString();
    }

    public static String error(String message, Object code) {
        ObjectNode root = JSON.createObjectNode();
        ObjectNode error = root.putObject("error").put("object", "error").put("message", message)
                .put("type", "ServiceUnavailableError");
        error.putNull("param");
        error.putPOJO("code", code);
        return root.toString();
    }

    /** The standard stream: role, "Hello", " world", "!", finish, usage, [DONE]. */
    public static List<String> standard() {
        List<String> events = new ArrayList<>();
        events.add(role());
        events.add(content("Hello"));
        events.add(content(" world"));
        events.add(content("!"));
        events.add(finish("stop"));
        events.add(usage(12, 3));
        events.add("[DONE]");
        return events;
    }

    private static ObjectNode base() {
        return JSON.createObjectNode().put("id", RESPONSE_ID).put("object", "chat.completion.chunk")
                .put("created", 1_700_000_000).put("model", "test-model");
    }

    private static String chunk(ObjectNode delta, String finishReason) {
        ObjectNode root = base();
        ArrayNode choices = root.putArray("choices");
        ObjectNode choice = choices.addObject().put("index", 0);
        choice.set("delta", delta);
        choice.putNull("logprobs");
        if (finishReason == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finishReason);
        }
        return root.toString();
    }
}
