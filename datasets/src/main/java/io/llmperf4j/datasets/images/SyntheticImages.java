package io.llmperf4j.datasets.images;

import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageOutputStream;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferInt;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.SplittableRandom;

/**
 * Seeded synthetic images: every pixel a random RGB colour drawn from the seed and the size, encoded with the JDK's
 * ImageIO. Noise does not compress, so the encoded size grows with the pixel count (a 1024x1024 PNG weighs 16 times a
 * 256x256 one, about 3 bytes a pixel; a JPEG less, by its quality), as a photo's does and a flat image's would not.
 * The same seed, size, format and quality give the same bytes on the same JDK; manifests record the digest so a
 * replay on another JDK whose encoder differs is caught.
 */
public final class SyntheticImages {
    /** Wider or taller images are refused: 8000 px is Anthropic's limit and far beyond vLLM's default resize. */
    public static final int MAX_SIDE = 16_384;

    static {
        ImageIO.setUseCache(false); // encode in memory, never through temporary files
    }

    private SyntheticImages() {
    }

    /** The encoded bytes of {@code image}. */
    public static byte[] encode(ImageSource.Synthetic image) {
        if (image.width() > MAX_SIDE || image.height() > MAX_SIDE) {
            throw new IllegalArgumentException("image size " + image.width() + "x" + image.height()
                    + " exceeds " + MAX_SIDE + " px on a side");
        }
        BufferedImage pixels = new BufferedImage(image.width(), image.height(), BufferedImage.TYPE_INT_RGB);
        int[] rgb = ((DataBufferInt) pixels.getRaster().getDataBuffer()).getData();
        SplittableRandom random = new SplittableRandom(mix(image.seed(), image.width(), image.height()));
        for (int i = 0; i < rgb.length; i++) rgb[i] = random.nextInt() & 0xFFFFFF;
        ByteArrayOutputStream out = new ByteArrayOutputStream(rgb.length * 3 + 1024);
        ImageWriter writer = ImageIO.getImageWritersByFormatName(image.format().formatName()).next();
        try (ImageOutputStream stream = ImageIO.createImageOutputStream(out)) {
            writer.setOutput(stream);
            ImageWriteParam param = writer.getDefaultWriteParam();
            if (image.format() == ImageFormat.JPEG) {
                param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
                param.setCompressionQuality(image.quality() / 100f);
            }
            writer.write(null, new IIOImage(pixels, null, null), param);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a synthetic image: " + e.getMessage(), e);
        } finally {
            writer.dispose();
        }
        return out.toByteArray();
    }

    /** One 64-bit stream seed from the image seed and the size, so each size has its own noise. */
    private static long mix(long seed, int width, int height) {
        long z = seed ^ (((long) width << 32) | (height & 0xFFFFFFFFL)) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
