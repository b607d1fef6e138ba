package io.llmperf4j.datasets.images;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An image file whose header reads but whose data is cut is refused at start, named (images QA, finding 6). */
class TruncatedImageFileTest {

    @Test
    void aTruncatedPngIsRefusedWithItsNameAndTheWholeOneIsKept(@TempDir Path tmp) throws IOException {
        BufferedImage noise = new BufferedImage(64, 48, BufferedImage.TYPE_INT_RGB);
        Random random = new Random(7);
        for (int y = 0; y < 48; y++) for (int x = 0; x < 64; x++) noise.setRGB(x, y, random.nextInt(1 << 24));
        Path whole = tmp.resolve("whole.png");
        ImageIO.write(noise, "png", whole.toFile());
        Path cut = Files.write(tmp.resolve("cut.png"), Arrays.copyOf(Files.readAllBytes(whole), 100));

        ImageLibrary library = new ImageLibrary();
        EncodedImage image = library.file(whole, null);
        assertEquals(64, image.width());
        assertEquals(48, image.height());

        String message = assertThrows(IllegalArgumentException.class, () -> library.file(cut, null)).getMessage();
        assertTrue(message.startsWith("image " + cut + " cannot be read"), message);
        // the same rule when the file is sent as a URL: the server fetches the same bytes
        assertThrows(IllegalArgumentException.class, () -> library.file(cut, "http://127.0.0.1:1/cut.png"));
    }
}
