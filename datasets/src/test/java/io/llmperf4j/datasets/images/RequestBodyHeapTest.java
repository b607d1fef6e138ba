package io.llmperf4j.datasets.images;

import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The heap check counts the request bodies in flight beside the distinct images, and a body over OpenAI's 50 MB gets
 * a warning (images QA, finding 3: 50 images of 2048x2048 at concurrency 2 built 840 MB bodies with no word).
 */
class RequestBodyHeapTest {

    private static List<RequestSpec> requests(int imagesPerRequest) {
        // one 1024x1024 noise PNG (about 4.2 MB of base64), sent imagesPerRequest times by each of 2 requests
        ImageInput image = new ImageLibrary().synthetic(new ImageSource.Synthetic(1, 1024, 1024, ImageFormat.PNG, 0));
        List<ImageInput> images = Collections.nCopies(imagesPerRequest, image);
        return List.of(ImageAttachment.withImages(new RequestSpec(0, "a", 1, 4), images),
                ImageAttachment.withImages(new RequestSpec(1, "b", 1, 4), images));
    }

    private static String run(List<RequestSpec> requests, int inFlight) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ImageAttachment.checkBodies(requests, inFlight, new PrintStream(err, true, StandardCharsets.UTF_8));
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aBodyOverFiftyMegabytesIsWarnedOfWithItsSize() {
        List<RequestSpec> requests = requests(13); // 13 x 4.2 MB = 55 MB of base64 in one body
        long body = 13L * requests.get(0).inputs().images().get(0).base64().length();
        assertTrue(body > ImageAttachment.BODY_WARNING_BYTES, "the test's body: " + body);
        String warning = run(requests, 1);
        assertTrue(warning.startsWith("llmperf4j: warning: the largest request carries " + Math.round(body / 1e6)
                + " MB of images (base64), more than the 50 MB"), warning);
        assertEquals("", run(requests(1), 1), "one image per request: no warning");
    }

    @Test
    void bodiesInFlightThatCannotFitHalfTheHeapAreRefused() {
        List<RequestSpec> requests = requests(1);
        long body = requests.get(0).inputs().images().get(0).base64().length();
        int inFlight = (int) Math.min(Integer.MAX_VALUE, Runtime.getRuntime().maxMemory() / 2 / body + 1);
        String message = assertThrows(IllegalArgumentException.class, () -> run(requests, inFlight)).getMessage();
        assertTrue(message.startsWith(String.format(java.util.Locale.ROOT, "the 1 distinct images need %.0f MB and "
                + "%d requests in flight carry up to %.0f MB each, more than half the heap", body / 1e6, inFlight,
                body / 1e6)), message);
        assertEquals("", run(requests, 1), "one body in flight fits");
    }
}
