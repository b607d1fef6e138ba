package io.llmperf4j.datasets.images;

import io.llmperf4j.datasets.Workload;
import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.prompt.LengthDistribution;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImageAttachmentTest {
    static Workload textWorkload(int n) {
        List<RequestSpec> requests = new ArrayList<>(n);
        for (int i = 0; i < n; i++) requests.add(new RequestSpec(i, "prompt " + i, 10, 20));
        return new Workload(Workload.FIXED, "test", null, "test-tokenizer", 11111, Map.of("request_count", n), requests);
    }

    @Test
    void aThousandRequestsWithOneMegabyteImagesHoldOnlyTheDistinctImages() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        Workload text = textWorkload(1000);
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        ImageLibrary library = new ImageLibrary();
        // 600x600 noise PNG: about 1.08 MB each, 1.08 GB if every request had its own copy
        Workload workload = ImageAttachment.attach(text, ImageOptions.synthetic(1, 600, 600), library);
        System.gc();
        long retained = memory.getHeapMemoryUsage().getUsed() - before;

        Set<ImageInput> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        long sentBytes = 0;
        for (RequestSpec request : workload.requests()) {
            assertEquals(1, request.inputs().images().size());
            distinct.add(request.inputs().images().get(0));
            sentBytes += request.inputs().imageBytes();
        }
        assertEquals(ImageOptions.DEFAULT_VARIANTS, distinct.size());
        assertEquals(ImageOptions.DEFAULT_VARIANTS, library.size());
        assertTrue(sentBytes > 1_000_000_000L, "the workload sends over 1 GB of images: " + sentBytes);
        assertTrue(retained < 64L << 20, "the heap holds " + (retained >> 20) + " MB for " + (sentBytes >> 20)
                + " MB of images sent");
        System.out.println("1000 requests x 1 image of " + distinct.iterator().next().byteLength() + " bytes: "
                + (sentBytes >> 20) + " MB sent, " + (retained >> 20) + " MB retained on the heap, "
                + library.size() + " distinct images (" + library.heldChars() / 1_000_000 + " MB of base64)");
    }

    @Test
    void promptsStayAndImagesCycleThroughVariants() {
        Workload text = textWorkload(10);
        ImageOptions options = new ImageOptions(CountDistribution.parse("uniform:0,3"), LengthDistribution.fixed(32),
                LengthDistribution.uniform(16, 48), ImageFormat.JPEG, 70, 3, null, false, null);
        Workload a = ImageAttachment.attach(text, options, new ImageLibrary());
        Workload b = ImageAttachment.attach(text, options, new ImageLibrary());
        for (int i = 0; i < 10; i++) {
            RequestSpec request = a.requests().get(i);
            assertEquals(text.requests().get(i).prompt(), request.prompt());
            assertTrue(request.inputs().images().size() <= 3);
            for (int j = 0; j < request.inputs().images().size(); j++) {
                ImageInput image = request.inputs().images().get(j);
                assertEquals("image/jpeg", image.mediaType());
                assertEquals(32, image.width());
                assertTrue(image.url().startsWith("data:image/jpeg;base64,/9j/"), image.url().substring(0, 30));
                assertEquals(image.digest(), b.requests().get(i).inputs().images().get(j).digest());
            }
        }
        long seeds = a.requests().stream().flatMap(r -> r.inputs().images().stream())
                .map(image -> ((EncodedImage) image).source()).map(s -> ((ImageSource.Synthetic) s).seed())
                .distinct().count();
        assertEquals(3, seeds);
        @SuppressWarnings("unchecked")
        Map<String, Object> images = (Map<String, Object>) a.generation().get("images");
        assertEquals(Map.of("distribution", "uniform", "min", 0, "max", 3), images.get("per_request"));
        assertEquals("jpeg", images.get("format"));
    }

    @Test
    void folderImagesGoRoundRobinAndAsUrlsWithABaseUrl(@TempDir Path dir) throws Exception {
        Files.write(dir.resolve("b.png"), SyntheticImages.encode(new ImageSource.Synthetic(1, 20, 10, ImageFormat.PNG, 0)));
        Files.write(dir.resolve("a.jpg"), SyntheticImages.encode(new ImageSource.Synthetic(2, 30, 15, ImageFormat.JPEG, 90)));
        Files.writeString(dir.resolve("notes.txt"), "not an image");
        ImageOptions options = new ImageOptions(CountDistribution.fixed(1), null, null, null, 85, 1, dir, true,
                "http://127.0.0.1:9/img/");
        Workload workload = ImageAttachment.attach(textWorkload(3), options, new ImageLibrary());
        List<ImageInput> images = workload.requests().stream().map(r -> r.inputs().images().get(0)).toList();
        assertEquals("http://127.0.0.1:9/img/a.jpg", images.get(0).url());
        assertEquals(null, images.get(0).base64());
        assertEquals(30, images.get(0).width());
        assertEquals("image/jpeg", images.get(0).mediaType());
        assertEquals("http://127.0.0.1:9/img/b.png", images.get(1).url());
        assertSame(images.get(0), images.get(2));
    }

    @Test
    void refusesWhatCannotBeSent(@TempDir Path dir) {
        assertThrows(IllegalArgumentException.class, () -> new ImageOptions(CountDistribution.fixed(1), null, null,
                null, 85, 1, null, true, "http://h/"));
        assertThrows(IllegalArgumentException.class, () -> new ImageOptions(CountDistribution.fixed(1), null, null,
                null, 85, 1, dir, true, null));
        assertThrows(IllegalArgumentException.class, () -> ImageAttachment.attach(textWorkload(1),
                new ImageOptions(CountDistribution.fixed(1), null, null, null, 85, 1, dir, false, null),
                new ImageLibrary()));
        assertThrows(IllegalArgumentException.class, () -> CountDistribution.parse("uniform:3,1"));
        assertThrows(IllegalArgumentException.class, () -> CountDistribution.parse("two"));
        assertEquals(CountDistribution.fixed(2), CountDistribution.parse("fixed:2"));
        assertEquals(List.of(640, 480), java.util.Arrays.stream(ImageOptions.parseSize("640x480")).boxed().toList());
        assertThrows(IllegalArgumentException.class, () -> ImageOptions.parseSize("640*480"));
    }
}
