package io.llmperf4j.llama;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The GGUF v3 layout byte by byte, and the tiny model's determinism. */
class GgufWriterTest {

    @Test
    void writesHeaderMetadataTensorInfoAndAlignedData(@TempDir Path tmp) throws IOException {
        Path file = new GgufWriter()
                .putString("general.architecture", "llama")
                .tensor("t", new float[] {1.5f, -2f}, 2)
                .writeAndReturn(tmp.resolve("m.gguf"));
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals("GGUF", new String(new byte[] {in.get(), in.get(), in.get(), in.get()}, StandardCharsets.US_ASCII));
        assertEquals(3, in.getInt(), "version");
        assertEquals(1, in.getLong(), "tensor count");
        assertEquals(1, in.getLong(), "metadata count");
        assertEquals("general.architecture", string(in));
        assertEquals(8, in.getInt(), "type string");
        assertEquals("llama", string(in));
        assertEquals("t", string(in));
        assertEquals(1, in.getInt(), "dimensions");
        assertEquals(2, in.getLong());
        assertEquals(0, in.getInt(), "F32");
        assertEquals(0, in.getLong(), "offset in the data section");
        int dataStart = (in.position() + 31) / 32 * 32;
        assertEquals(1.5f, in.getFloat(dataStart));
        assertEquals(-2f, in.getFloat(dataStart + 4));
        assertEquals(dataStart + 32, in.capacity(), "the data is padded to the alignment");
    }

    @Test
    void theSameSeedWritesTheSameModel(@TempDir Path tmp) throws IOException {
        Path fixture = TinyLlamaFixture.modelFile();
        Path again = TinyLlamaModel.write(tmp.resolve("again.gguf"), TinyLlamaModel.DEFAULT_SEED);
        assertEquals(-1, Files.mismatch(fixture, again));
        assertEquals(17_438_432, Files.size(again));
    }

    private static String string(ByteBuffer in) {
        byte[] bytes = new byte[(int) in.getLong()];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
