package io.llmperf4j.datasets.images;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A count distribution that can only give 0 images is refused with the same words as -1 (images QA, finding 5). */
class CountDistributionRefusalTest {

    @Test
    void negativeMeanNormalIsRefusedLikeMinusOne() {
        String minusOne = assertThrows(IllegalArgumentException.class, () -> CountDistribution.parse("-1")).getMessage();
        String normal = assertThrows(IllegalArgumentException.class,
                () -> CountDistribution.parse("normal:-5,1")).getMessage();
        assertTrue(minusOne.contains("image counts must lie in 0..500"), minusOne);
        assertTrue(normal.contains("image counts must lie in 0..500"), normal);
        assertTrue(normal.contains("mean -5.0"), normal);
    }

    @Test
    void distributionsThatCanOnlyGiveZeroAreRefused() {
        for (String text : new String[] {"0", "fixed:0", "uniform:0,0", "normal:3,1,0,0"}) {
            String message = assertThrows(IllegalArgumentException.class, () -> CountDistribution.parse(text),
                    text).getMessage();
            assertTrue(message.contains("give at least one image"), message);
        }
    }

    @Test
    void distributionsThatCanGiveImagesStillParse() {
        assertEquals(1, CountDistribution.parse("normal:0,1").max() > 0 ? 1 : 0);
        assertEquals("uniform:0,2", CountDistribution.parse("uniform:0,2").toString());
        assertEquals("2", CountDistribution.parse("2").toString());
    }
}
