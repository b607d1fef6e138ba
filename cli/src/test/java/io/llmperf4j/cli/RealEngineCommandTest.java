package io.llmperf4j.cli;

import de.kherud.llama.Pair;
import io.llmperf4j.llama.LlamaEngine;
import io.llmperf4j.llama.LlamaServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;
import java.util.List;
import java.util.OptionalInt;

/**
 * {@link RealEngineContract} against llama.cpp in this (forked) JVM, behind the OpenAI-compatible
 * {@link LlamaServer}.
 */
class RealEngineCommandTest extends RealEngineContract {
    private static LlamaEngine engine;
    private static LlamaServer server;

    @BeforeAll
    static void startEngine() throws IOException {
        engine = LlamaEngine.load(writeModel(), 2048);
        server = LlamaServer.start(engine, MODEL, "127.0.0.1", 0);
    }

    @AfterAll
    static void stopEngine() {
        server.close();
        engine.close();
    }

    @Override
    String baseUrl() {
        return server.baseUrl();
    }

    /** "[INST] " and " [/INST]" around the prompt (llmperf's system message is empty); both counts include BOS. */
    @Override
    OptionalInt chatTemplateTokens() {
        String rendered = engine.renderChat("", List.of(new Pair<>("user", "Hello")));
        if (!rendered.equals("[INST] Hello [/INST]")) throw new AssertionError("template renders " + rendered);
        int tokens = engine.countPromptTokens(rendered) - engine.countPromptTokens("Hello");
        if (tokens != 7) throw new AssertionError("the template adds " + tokens + " tokens, the README says 7");
        return OptionalInt.of(tokens);
    }
}
