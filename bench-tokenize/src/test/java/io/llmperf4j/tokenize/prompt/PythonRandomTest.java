package io.llmperf4j.tokenize.prompt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Expected values were printed by CPython 3.11.7 ({@code random.Random}). */
class PythonRandomTest {

    @Test
    void randomMatchesWellKnownCPythonValues() {
        assertEquals(0.8444218515250481, new PythonRandom(0).random());
        PythonRandom r = new PythonRandom(42);
        assertEquals(0.6394267984578837, r.random());
        assertEquals(0.025010755222666936, r.random());
        assertEquals(0.27502931836911926, r.random());
    }

    @Test
    void randomAfterLlmperfSeed() {
        PythonRandom r = new PythonRandom(11111);
        assertEquals(0.9479227239554819, r.random());
        assertEquals(0.026355604507073638, r.random());
        assertEquals(0.3605189895382517, r.random());
    }

    @Test
    void gaussKeepsItsSecondValueForTheNextCall() {
        PythonRandom r = new PythonRandom(11111);
        assertEquals(0.2188610547428915, r.gauss(0, 1));
        assertEquals(-0.07428402778542952, r.gauss(0, 1)); // the cached sin() half of the pair
        assertEquals(-0.6476173412802638, r.gauss(0, 1));
        r.seed(11111);
        assertEquals(582.8291582114338, r.gauss(550, 150));
        assertEquals(538.8573958321856, r.gauss(550, 150));
        assertEquals(452.8573988079604, r.gauss(550, 150));
    }

    @Test
    void seedingDropsTheCachedGauss() {
        PythonRandom r = new PythonRandom(11111);
        r.gauss(0, 1); // leaves a cached value
        r.seed(11111);
        assertEquals(0.2188610547428915, r.gauss(0, 1));
    }

    @Test
    void getrandbitsUsesTheTopBitsOfEachWord() {
        PythonRandom r = new PythonRandom(11111);
        assertEquals(1, r.getrandbits(1));
        assertEquals(42, r.getrandbits(7));
        assertEquals(113196452L, r.getrandbits(32));
        assertEquals(1533329028L, r.getrandbits(33));
        assertEquals(3609656630633755L, r.getrandbits(53));
        assertEquals(7077732690280265057L, r.getrandbits(63));
        assertEquals(0, r.getrandbits(0));
        assertThrows(IllegalArgumentException.class, () -> r.getrandbits(64));
    }

    @Test
    void randbelowRejectsOutOfRangeDraws() {
        PythonRandom r = new PythonRandom(11111);
        int[] bounds = {1, 2, 3, 10, 84, 1000, Integer.MAX_VALUE};
        int[] expected = {0, 0, 1, 5, 51, 909, 1647913057};
        for (int i = 0; i < bounds.length; i++) assertEquals(expected[i], r.randbelow(bounds[i]), "randbelow(" + bounds[i] + ")");
    }

    @Test
    void shuffleIsFisherYatesFromTheEnd() {
        PythonRandom r = new PythonRandom(11111);
        List<Integer> list = new ArrayList<>(IntStream.range(0, 10).boxed().toList());
        r.shuffle(list);
        assertEquals(List.of(1, 4, 6, 8, 3, 7, 2, 9, 0, 5), list);
    }

    @Test
    void seedsUseEveryWordOfTheAbsoluteValue() {
        assertSeed(-42, 0.6394267984578837, 107420369L);
        assertSeed(1L << 32, 0.11299430095636409, 1794561286L);
        assertSeed((1L << 40) + 5, 0.5043802970418443, 1153647273L);
        assertSeed(Long.MAX_VALUE, 0.3166448820870279, 2711238091L);
        assertSeed(Long.MIN_VALUE, 0.5534639983914199, 4039908392L);
        PythonRandom big = new PythonRandom(0);
        big.seed(BigInteger.TWO.pow(64).add(BigInteger.valueOf(3)));
        assertEquals(0.9129684455472157, big.random());
        assertEquals(3962962676L, big.getrandbits(32));
    }

    private static void assertSeed(long seed, double firstRandom, long thenBits32) {
        PythonRandom r = new PythonRandom(seed);
        assertEquals(firstRandom, r.random(), "random() after seed " + seed);
        assertEquals(thenBits32, r.getrandbits(32), "getrandbits(32) after seed " + seed);
    }
}
