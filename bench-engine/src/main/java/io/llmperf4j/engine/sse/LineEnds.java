package io.llmperf4j.engine.sse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds the next CR or LF in a byte array eight bytes at a time (the SWAR "has a zero byte" test on the word XORed
 * with each pattern), as Netty's {@code ByteBufUtil.firstIndexOf} does for one byte value. Little-endian loads put
 * the lowest address in the lowest byte, so the lowest flagged byte is the first line end: the test can flag a false
 * byte only above a true one.
 */
final class LineEnds {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long LF = 0x0A0A0A0A0A0A0A0AL;
    private static final long CR = 0x0D0D0D0D0D0D0D0DL;
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private LineEnds() {
    }

    /** Index of the first {@code '\r'} or {@code '\n'} in {@code bytes[from, to)}, or -1. */
    static int indexOf(byte[] bytes, int from, int to) {
        int i = from;
        for (; i <= to - Long.BYTES; i += Long.BYTES) {
            long word = (long) LONGS.get(bytes, i);
            long lf = word ^ LF;
            long cr = word ^ CR;
            long found = ((lf - ONES) & ~lf | (cr - ONES) & ~cr) & HIGHS;
            if (found != 0) return i + (Long.numberOfTrailingZeros(found) >>> 3);
        }
        for (; i < to; i++) {
            byte b = bytes[i];
            if (b == '\n' || b == '\r') return i;
        }
        return -1;
    }
}
