package io.llmperf4j.datasets.images;

import org.junit.jupiter.api.Test;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SyntheticImagesTest {
    private static ImageSource.Synthetic png(long seed, int w, int h) {
        return new ImageSource.Synthetic(seed, w, h, ImageFormat.PNG, 0);
    }

    @Test
    void bytesDependOnlyOnSeedAndSize() throws IOException {
        byte[] a = SyntheticImages.encode(png(7, 64, 48));
        assertArrayEquals(a, SyntheticImages.encode(png(7, 64, 48)));
        assertFalse(Arrays.equals(a, SyntheticImages.encode(png(8, 64, 48))));
        assertFalse(Arrays.equals(a, SyntheticImages.encode(png(7, 48, 64))));
        BufferedImage decoded = ImageIO.read(new ByteArrayInputStream(a));
        assertEquals(64, decoded.getWidth());
        assertEquals(48, decoded.getHeight());
    }

    @Test
    void noiseDoesNotCompressSoSizeFollowsPixels() {
        int small = SyntheticImages.encode(png(1, 256, 256)).length;
        int large = SyntheticImages.encode(png(1, 1024, 1024)).length;
        double ratio = (double) large / small;
        assertTrue(small > 256 * 256 * 3, "a noise PNG keeps about 3 bytes a pixel: " + small);
        assertTrue(ratio > 15.5 && ratio < 16.5, "1024x1024 weighs 16x 256x256: " + ratio);
        int jpeg = SyntheticImages.encode(new ImageSource.Synthetic(1, 1024, 1024, ImageFormat.JPEG, 85)).length;
        int jpegSmall = SyntheticImages.encode(new ImageSource.Synthetic(1, 256, 256, ImageFormat.JPEG, 85)).length;
        assertTrue(jpeg < large, "JPEG at 85 is smaller than PNG: " + jpeg);
        assertTrue((double) jpeg / jpegSmall > 15 && (double) jpeg / jpegSmall < 17, jpeg + " / " + jpegSmall);
    }

    @Test
    void refusesBadSizesAndQualities() {
        assertThrows(IllegalArgumentException.class, () -> png(1, 0, 10));
        assertThrows(IllegalArgumentException.class, () -> new ImageSource.Synthetic(1, 8, 8, ImageFormat.JPEG, 0));
        assertThrows(IllegalArgumentException.class, () -> SyntheticImages.encode(png(1, 20_000, 1)));
    }
}
