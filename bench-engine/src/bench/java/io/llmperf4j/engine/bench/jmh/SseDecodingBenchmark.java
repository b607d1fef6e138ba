package io.llmperf4j.engine.bench.jmh;

import io.llmperf4j.engine.sse.SseDecoder;
import io.llmperf4j.engine.sse.SseEventSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * SSE decoding in events per second on one thread: {@value #EVENTS} OpenAI chat chunks (one token each, as vLLM
 * sends them) arrive in reads of {@code readBytes} bytes, the way a socket delivers them, and go through
 * {@link SseDecoder} into a sink that only consumes them. Score: events/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SseDecodingBenchmark {

    static final int EVENTS = 256;

    /** Bytes per socket read: 64 (a token per read, worst case), 2048, 16384 (many events per read). */
    @Param({"64", "2048", "16384"})
    public int readBytes;

    private ByteBuf[] reads;
    private SseDecoder decoder;

    @Setup
    public void setUp() {
        StringBuilder stream = new StringBuilder();
        for (int i = 0; i < EVENTS; i++) {
            stream.append("data: ").append(ChunkSamples.chatChunk(i)).append("\n\n");
        }
        byte[] bytes = stream.toString().getBytes(StandardCharsets.UTF_8);
        int n = (bytes.length + readBytes - 1) / readBytes;
        reads = new ByteBuf[n];
        for (int i = 0; i < n; i++) {
            int from = i * readBytes;
            reads[i] = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(bytes, from,
                    Math.min(readBytes, bytes.length - from)));
        }
        decoder = new SseDecoder(1 << 20);
    }

    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public void decode(Blackhole bh) {
        SseEventSink sink = bh::consume;
        for (ByteBuf read : reads) {
            read.readerIndex(0);
            decoder.decode(read, 1L, sink);
        }
    }
}
