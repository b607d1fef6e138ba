package io.llmperf4j.server;

/**
 * A real inference engine behind the server's OpenAI-compatible front ({@link EngineServer}): it produces the
 * text of one parsed request, and the front does everything HTTP (routing, parsing, errors in each API's dialect,
 * SSE framing, usage, keep-alive and pipelining) exactly as the simulator's front does.
 *
 * <p>The simulator itself does not go through this interface: it injects faults at the byte level (cut events,
 * dropped connections) and writes every chunk due at once in one batch, which text-at-a-time reporting cannot
 * express. It shares everything else of the front.
 */
@FunctionalInterface
public interface GenerationEngine {

    /**
     * Starts serving {@code request} and returns at once. The engine then reports to {@code sink}, from any one
     * thread, in this order: {@link GenerationSink#start}, {@link GenerationSink#text} any number of times, and
     * {@link GenerationSink#end}; or {@link GenerationSink#fail} at any point. It should poll
     * {@link GenerationSink#cancelled()} between tokens and stop without reporting when the client left.
     */
    void generate(GenerationRequest request, GenerationSink sink);
}
