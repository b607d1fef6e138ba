package io.llmperf4j.llama;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a GGUF version 3 file (llama.cpp's model format): the header, typed metadata key-value pairs, tensor
 * descriptions, then the F32 tensor data, each tensor aligned to {@value #ALIGNMENT} bytes. Little-endian
 * throughout, as the format requires. Only the value types a llama model needs are offered.
 *
 * <p>Tensor dimensions are given in ggml order: the first is the innermost (contiguous) one, so a weight that maps
 * {@code n_in} to {@code n_out} is {@code {n_in, n_out}} with {@code n_out} rows of {@code n_in} floats.
 */
final class GgufWriter {
    static final int ALIGNMENT = 32;
    private static final int MAGIC = 0x46554747; // "GGUF" read as a little-endian uint32
    private static final int VERSION = 3;

    // metadata value types
    private static final int UINT32 = 4;
    private static final int INT32 = 5;
    private static final int FLOAT32 = 6;
    private static final int BOOL = 7;
    private static final int STRING = 8;
    private static final int ARRAY = 9;
    // tensor types
    private static final int GGML_TYPE_F32 = 0;

    private interface Value {
        void write(Out out) throws IOException;
    }

    private record Entry(String key, Value value) {
    }

    private record Tensor(String name, long[] dims, float[] data) {
    }

    private final List<Entry> metadata = new ArrayList<>();
    private final List<Tensor> tensors = new ArrayList<>();

    GgufWriter putString(String key, String value) {
        return put(key, out -> {
            out.u32(STRING);
            out.string(value);
        });
    }

    GgufWriter putUInt32(String key, int value) {
        return put(key, out -> {
            out.u32(UINT32);
            out.u32(value);
        });
    }

    GgufWriter putFloat32(String key, float value) {
        return put(key, out -> {
            out.u32(FLOAT32);
            out.f32(value);
        });
    }

    GgufWriter putBool(String key, boolean value) {
        return put(key, out -> {
            out.u32(BOOL);
            out.u8(value ? 1 : 0);
        });
    }

    GgufWriter putStrings(String key, List<String> values) {
        return put(key, out -> {
            arrayHeader(out, STRING, values.size());
            for (String value : values) out.string(value);
        });
    }

    GgufWriter putFloat32s(String key, float[] values) {
        return put(key, out -> {
            arrayHeader(out, FLOAT32, values.length);
            for (float value : values) out.f32(value);
        });
    }

    GgufWriter putInt32s(String key, int[] values) {
        return put(key, out -> {
            arrayHeader(out, INT32, values.length);
            for (int value : values) out.u32(value);
        });
    }

    /** An F32 tensor; {@code data.length} must be the product of {@code dims}. */
    GgufWriter tensor(String name, float[] data, long... dims) {
        long elements = 1;
        for (long dim : dims) elements *= dim;
        if (elements != data.length) {
            throw new IllegalArgumentException(name + ": " + data.length + " floats for dims " + List.of(dims));
        }
        tensors.add(new Tensor(name, dims.clone(), data));
        return this;
    }

    /** Writes the file atomically (a temporary file next to it, then a move) and returns it. */
    Path writeAndReturn(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        try {
            try (Out out = new Out(new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16))) {
                writeTo(out);
            }
            readableByAll(temp); // a container's server may run as another user
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
        return file;
    }

    private static void readableByAll(Path file) throws IOException {
        if (Files.getFileStore(file).supportsFileAttributeView(PosixFileAttributeView.class)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    private void writeTo(Out out) throws IOException {
        out.u32(MAGIC);
        out.u32(VERSION);
        out.u64(tensors.size());
        out.u64(metadata.size());
        for (Entry entry : metadata) {
            out.string(entry.key());
            entry.value().write(out);
        }
        long offset = 0; // relative to the start of the data section
        for (Tensor tensor : tensors) {
            out.string(tensor.name());
            out.u32(tensor.dims().length);
            for (long dim : tensor.dims()) out.u64(dim);
            out.u32(GGML_TYPE_F32);
            out.u64(offset);
            offset = align(offset + 4L * tensor.data().length);
        }
        out.padTo(ALIGNMENT);
        for (Tensor tensor : tensors) {
            for (float value : tensor.data()) out.f32(value);
            out.padTo(ALIGNMENT);
        }
    }

    private GgufWriter put(String key, Value value) {
        metadata.add(new Entry(key, value));
        return this;
    }

    private static void arrayHeader(Out out, int elementType, int count) throws IOException {
        out.u32(ARRAY);
        out.u32(elementType);
        out.u64(count);
    }

    private static long align(long offset) {
        return (offset + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    /** A little-endian output stream that knows its position, for padding. */
    private static final class Out implements AutoCloseable {
        private final OutputStream out;
        private final ByteBuffer scratch = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        private long position;

        Out(OutputStream out) {
            this.out = out;
        }

        void u8(int value) throws IOException {
            out.write(value);
            position++;
        }

        void u32(int value) throws IOException {
            scratch.clear();
            scratch.putInt(value);
            flushScratch();
        }

        void u64(long value) throws IOException {
            scratch.clear();
            scratch.putLong(value);
            flushScratch();
        }

        void f32(float value) throws IOException {
            scratch.clear();
            scratch.putFloat(value);
            flushScratch();
        }

        /** gguf_string: a uint64 byte length, then UTF-8 bytes without a terminator. */
        void string(String value) throws IOException {
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            u64(bytes.length);
            out.write(bytes);
            position += bytes.length;
        }

        void padTo(int alignment) throws IOException {
            while (position % alignment != 0) u8(0);
        }

        private void flushScratch() throws IOException {
            out.write(scratch.array(), 0, scratch.position());
            position += scratch.position();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
