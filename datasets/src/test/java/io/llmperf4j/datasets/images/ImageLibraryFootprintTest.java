package io.llmperf4j.datasets.images;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every run makes an {@link ImageLibrary}; a run without images must not pay for ImageIO (its service registry
 * and some 80 classes of {@code java.desktop}, part of the run's peak RSS). Checked in a fresh JVM, from its
 * class-load log, since this test JVM loads ImageIO for the other image tests; then the same JVM reads an image
 * file's header, to show the log would have caught it.
 */
class ImageLibraryFootprintTest {

    @TempDir
    Path dir;

    /** The child JVM: a library used without an image file, then (with an argument) with one. */
    public static final class TextRun {
        public static void main(String[] args) {
            ImageLibrary library = new ImageLibrary();
            boolean http = ImageLibrary.isHttpUrl("https://example.invalid/a.png");
            EncodedImage remote = library.remote("https://example.invalid/a.png");
            System.out.println("text run: " + http + " " + library.size() + " " + (remote != null));
            System.out.println("---");
            if (args.length > 0) {
                EncodedImage file = library.file(Path.of(args[0]), null);
                System.out.println("file: " + file.width() + "x" + file.height());
            }
        }
    }

    @Test
    void aLibraryWithoutImageFilesLoadsNoImageIo() throws Exception {
        Path png = dir.resolve("one.png");
        Files.write(png, SyntheticImages.encode(new ImageSource.Synthetic(7, 3, 2, ImageFormat.PNG, 0)));
        Path log = dir.resolve("class-load.txt");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xlog:class+load:file=" + log + ":uptime",
                "-cp", System.getProperty("java.class.path"), TextRun.class.getName(), png.toString())
                .redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, child.exitValue(), out);
        assertEquals(List.of("text run: true 1 true", "---", "file: 3x2"), out.lines().toList());

        List<String> loaded = Files.readAllLines(log);
        int headers = indexOf(loaded, ImageHeaders.class.getName());
        assertTrue(headers > 0, "the file's header was read through ImageHeaders");
        List<String> imageIoBefore = loaded.subList(0, headers).stream()
                .filter(l -> l.matches(".*\\] (javax\\.imageio|com\\.sun\\.imageio|java\\.awt\\.image)\\..*"))
                .toList();
        assertEquals(List.of(), imageIoBefore);
        assertTrue(loaded.subList(headers, loaded.size()).stream().anyMatch(l -> l.contains("] javax.imageio.ImageIO ")),
                "ImageIO was loaded for the image file");
    }

    private static int indexOf(List<String> lines, String className) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("] " + className + " ")) return i;
        }
        return -1;
    }
}
