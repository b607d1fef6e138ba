package io.llmperf4j.engine.sse;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LineEndsTest {

    /** The first CR or LF, byte by byte: what the word-at-a-time search must agree with. */
    private static int slowIndexOf(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n' || bytes[i] == '\r') return i;
        }
        return -1;
    }

    @Test
    void agreesWithAByteByByteSearchOnEveryRangeOfRandomBytes() {
        Random random = new Random(42);
        // bytes near the patterns (0x09-0x0E, 0x8A, 0x8D) are where a borrow could flag a false byte
        byte[] alphabet = {'\n', '\r', 0x09, 0x0B, 0x0C, 0x0E, 0x00, (byte) 0x8A, (byte) 0x8D, (byte) 0xFF, 'a', ' '};
        for (int round = 0; round < 2_000; round++) {
            byte[] bytes = new byte[random.nextInt(40)];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = random.nextInt(4) == 0 ? alphabet[random.nextInt(alphabet.length)] : (byte) random.nextInt(256);
            }
            for (int from = 0; from <= bytes.length; from++) {
                for (int to = from; to <= bytes.length; to++) {
                    assertEquals(slowIndexOf(bytes, from, to), LineEnds.indexOf(bytes, from, to),
                            "from " + from + " to " + to);
                }
            }
        }
    }

    @Test
    void findsEachLineEndAtEveryPositionOfAWord() {
        for (int length = 1; length <= 24; length++) {
            for (int at = 0; at < length; at++) {
                for (byte end : new byte[] {'\n', '\r'}) {
                    byte[] bytes = "x".repeat(length).getBytes();
                    bytes[at] = end;
                    assertEquals(at, LineEnds.indexOf(bytes, 0, length));
                    assertEquals(-1, LineEnds.indexOf(bytes, at + 1, length));
                }
            }
        }
    }
}
