package io.llmperf4j.llama;

import de.kherud.llama.Pair;
import io.llmperf4j.server.GenerationEngine;
import io.llmperf4j.server.GenerationRequest;
import io.llmperf4j.server.GenerationSink;

import java.util.ArrayList;
import java.util.List;

/**
 * {@link LlamaEngine} behind the server's front: a parsed request becomes a {@link LlamaEngine.Generation}, and the
 * engine's reports go to the front's sink. A conversation is leading system messages (joined by "\n") and then
 * user and assistant turns, as llama.cpp's chat templates take them; other roles, prompts sent as token ids, and
 * chat messages holding a NUL character (llama.cpp hands the rendered template back as a C string, which would end
 * at the NUL and silently drop the rest) are refused with a 400. The completion always has exactly
 * {@code max_tokens} tokens (EOS is ignored), finish reason "length", unless a stop string ends it first
 * (finish reason "stop").
 */
final class LlamaGenerationEngine implements GenerationEngine {
    private final LlamaEngine engine;

    LlamaGenerationEngine(LlamaEngine engine) {
        this.engine = engine;
    }

    @Override
    public void generate(GenerationRequest request, GenerationSink sink) {
        LlamaEngine.Generation generation;
        try {
            generation = toGeneration(request);
        } catch (IllegalArgumentException refused) {
            sink.fail(refused.getMessage(), true);
            return;
        }
        engine.submit(generation, new LlamaEngine.Listener() {
            @Override
            public void onStart(int promptTokens) {
                sink.start(promptTokens);
            }

            @Override
            public void onText(String text) {
                sink.text(text);
            }

            @Override
            public void onEnd(int promptTokens, int completionTokens, boolean stopped) {
                sink.end(completionTokens, stopped);
            }

            @Override
            public void onError(String message, boolean badRequest) {
                sink.fail(message, badRequest);
            }
        }, sink::cancelled);
    }

    /** @throws IllegalArgumentException with the 400's message when llama.cpp cannot take the request */
    static LlamaEngine.Generation toGeneration(GenerationRequest request) {
        Float temperature = request.temperature() == null ? null : request.temperature().floatValue();
        Float topP = request.topP() == null ? null : request.topP().floatValue();
        if (!request.isChat()) {
            if (request.promptIsTokenIds()) {
                throw new IllegalArgumentException("prompt must be a string: llama.cpp is not given token ids here.");
            }
            return new LlamaEngine.Generation(request.prompt(), null, null, request.maxTokens(), temperature, topP,
                    request.seed(), request.stop());
        }
        List<GenerationRequest.ChatMessage> messages = request.messages();
        for (GenerationRequest.ChatMessage message : messages) {
            if (message.content().indexOf('\0') >= 0) {
                throw new IllegalArgumentException("A " + message.role() + " message's content contains a NUL "
                        + "character (\\u0000): llama.cpp's chat template would cut the text there, so it is refused.");
            }
        }
        StringBuilder system = new StringBuilder();
        int first = 0;
        for (; first < messages.size() && messages.get(first).role().equals("system"); first++) {
            if (first > 0) system.append('\n');
            system.append(messages.get(first).content());
        }
        List<Pair<String, String>> turns = new ArrayList<>();
        for (GenerationRequest.ChatMessage message : messages.subList(first, messages.size())) {
            if (!message.role().equals("user") && !message.role().equals("assistant")) {
                throw new IllegalArgumentException("Role '" + message.role() + "' is not supported here: system "
                        + "messages come first, then user and assistant turns.");
            }
            turns.add(new Pair<>(message.role(), message.content()));
        }
        return new LlamaEngine.Generation(null, system.toString(), turns, request.maxTokens(), temperature, topP,
                request.seed(), request.stop());
    }
}
