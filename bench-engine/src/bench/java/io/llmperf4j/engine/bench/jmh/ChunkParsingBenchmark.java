package io.llmperf4j.engine.bench.jmh;

import io.llmperf4j.engine.protocol.AnthropicEventParser;
import io.llmperf4j.engine.protocol.ChatCompletionChunkParser;
import io.llmperf4j.engine.protocol.MalformedChunkException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Event parsing in events per second on one thread: the data of OpenAI chat chunks (one token each) and of
 * Anthropic {@code content_block_delta} events through their streaming Jackson parsers, as the I/O threads parse
 * them. Score: events/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ChunkParsingBenchmark {

    static final int EVENTS = 256;

    private final ChatCompletionChunkParser openAi = new ChatCompletionChunkParser();
    private final AnthropicEventParser anthropic = new AnthropicEventParser();
    private byte[][] openAiChunks;
    private byte[][] anthropicDeltas;

    @Setup
    public void setUp() {
        openAiChunks = new byte[EVENTS][];
        anthropicDeltas = new byte[EVENTS][];
        for (int i = 0; i < EVENTS; i++) {
            openAiChunks[i] = ChunkSamples.chatChunk(i).getBytes(StandardCharsets.UTF_8);
            anthropicDeltas[i] = ChunkSamples.anthropicDelta(i).getBytes(StandardCharsets.UTF_8);
        }
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void openAiChatChunk(Blackhole bh) throws MalformedChunkException {
        for (byte[] chunk : openAiChunks) bh.consume(openAi.parse(null, chunk));
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void anthropicContentDelta(Blackhole bh) throws MalformedChunkException {
        for (byte[] delta : anthropicDeltas) bh.consume(anthropic.parse("content_block_delta", delta));
    }
}
