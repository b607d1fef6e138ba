package io.llmperf4j.server;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Images in chat and Anthropic requests: measured, counted in usage as vLLM counts them, and charged as prefill. */
class ImageInputsTest {
    private static final Duration PER_IMAGE_TOKEN = Duration.ofNanos(200_000);
    private static SimulatedServer server;
    private static TestClient client;

    @BeforeAll
    static void start() {
        server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ofMillis(1))
                .promptTokenCounter(text -> 1000 + text.length())
                .prefillPerImageToken(PER_IMAGE_TOKEN)
                .build());
        client = new TestClient(server);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static byte[] image(String format, int width, int height) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB), format, out);
        return out.toByteArray();
    }

    private static String chat(String text, List<byte[]> pngs) throws IOException {
        List<Object> parts = new java.util.ArrayList<>();
        parts.add(Map.of("type", "text", "text", text));
        for (byte[] png : pngs) {
            parts.add(Map.of("type", "image_url", "image_url",
                    Map.of("url", "data:image/png;base64," + Base64.getEncoder().encodeToString(png))));
        }
        return TestClient.JSON.writeValueAsString(Map.of("model", "m", "max_tokens", 2, "messages",
                List.of(Map.of("role", "user", "content", parts))));
    }

    @Test
    void tokensFollowQwen2VlResizing() {
        assertEquals(81 + 2, ImageTokens.of(256, 256));
        assertEquals(1196 + 2, ImageTokens.of(1280, 720));
        assertEquals(37 * 37 + 2, ImageTokens.of(1024, 1024));
        assertEquals(4 + 2, ImageTokens.of(10, 10), "grown to min_pixels (3136 = 2x2 blocks)");
        assertTrue(ImageTokens.of(8000, 8000) <= ImageTokens.MAX_PIXELS / 784 + 2, "shrunk to max_pixels");
    }

    @Test
    void headersGiveTheSizeOfPngJpegAndGif() throws IOException {
        assertArrayEquals(new int[] {300, 200}, PromptImages.size(image("png", 300, 200)));
        assertArrayEquals(new int[] {300, 200}, PromptImages.size(image("jpeg", 300, 200)));
        assertArrayEquals(new int[] {30, 20}, PromptImages.size(image("gif", 30, 20)));
        assertEquals(null, PromptImages.size("not an image".getBytes()));
    }

    /**
     * The prefill each image adds is judged on the simulator's own schedule (its first content's due time, from the
     * request's arrival: TTFT + image tokens x the per-token prefill), not on the client's elapsed times: the small
     * request, a fresh JVM's first, took 5.8 s against the large one's 3.1 s on a loaded machine. The large one's
     * elapsed time still covers its prefill (a lower bound, sound under load).
     */
    @Test
    void usageCountsImageTokensAndTtftGrowsWithImageSize() throws Exception {
        List<RequestTiming> timings = new CopyOnWriteArrayList<>();
        try (SimulatedServer timed = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(1)).interTokenDelay(Duration.ofMillis(1))
                .promptTokenCounter(text -> 1000 + text.length())
                .prefillPerImageToken(PER_IMAGE_TOKEN)
                .timingListener(timings::add)
                .build())) {
            TestClient timedClient = new TestClient(timed);
            String text = "describe";
            HttpResponse<String> small = timedClient.post("/chat/completions",
                    chat(text, List.of(image("png", 256, 256))));
            long largeStart = System.nanoTime();
            HttpResponse<String> large = timedClient.post("/chat/completions",
                    chat(text, List.of(image("png", 1024, 1024), image("png", 1024, 1024))));
            long largeNanos = System.nanoTime() - largeStart;
            assertEquals(200, small.statusCode(), small.body());
            assertEquals(200, large.statusCode(), large.body());
            int textTokens = 1000 + text.length();
            assertEquals(textTokens + 83, TestClient.JSON.readTree(small.body()).at("/usage/prompt_tokens").asInt());
            assertEquals(textTokens + 2 * 1371,
                    TestClient.JSON.readTree(large.body()).at("/usage/prompt_tokens").asInt());
            long largePrefill = PER_IMAGE_TOKEN.toNanos() * 2 * 1371; // 548 ms
            assertTrue(largeNanos >= largePrefill, "the response waits out the image prefill: " + largeNanos / 1e6
                    + " ms");

            // the server reports a request once it is over, on its own loop: after the client may have read it
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (timings.size() < 2 && System.nanoTime() - deadline < 0) Thread.sleep(5);
            assertEquals(2, timings.size(), timings::toString);
            List<RequestTiming> bySize = timings.stream()
                    .sorted(Comparator.comparingInt(RequestTiming::promptTokens)).toList();
            long ttft = Duration.ofMillis(1).toNanos();
            assertEquals(ttft + 83 * PER_IMAGE_TOKEN.toNanos(), dueAfterArrival(bySize.get(0)), "256x256");
            assertEquals(ttft + 2 * 1371 * PER_IMAGE_TOKEN.toNanos(), dueAfterArrival(bySize.get(1)),
                    "2 x 1024x1024");
        }
    }

    /** When the simulator scheduled the first content, after the request arrived (neither waited for a slot). */
    private static long dueAfterArrival(RequestTiming timing) {
        return timing.firstContentDueNanos() - timing.arrivalNanos();
    }

    @Test
    void anthropicImageBlocksCountAndUrlsAreNotFetched() throws Exception {
        String body = TestClient.JSON.writeValueAsString(Map.of("model", "m", "max_tokens", 2, "messages",
                List.of(Map.of("role", "user", "content", List.of(
                        Map.of("type", "image", "source", Map.of("type", "base64", "media_type", "image/jpeg",
                                "data", Base64.getEncoder().encodeToString(image("jpeg", 1280, 720)))),
                        Map.of("type", "image", "source", Map.of("type", "url", "url", "http://127.0.0.1:9/x.png")),
                        Map.of("type", "text", "text", "hi"))))));
        HttpResponse<String> response = client.post("/messages", body);
        assertEquals(200, response.statusCode(), response.body());
        JsonNode usage = TestClient.JSON.readTree(response.body()).get("usage");
        assertEquals(1000 + "hi".length() + 1198 + 6, usage.get("input_tokens").asInt());
    }

    @Test
    void anImageThatIsNotOneIsABadRequest() throws Exception {
        String body = TestClient.JSON.writeValueAsString(Map.of("model", "m", "messages", List.of(Map.of("role",
                "user", "content", List.of(Map.of("type", "image_url", "image_url",
                        Map.of("url", "data:image/png;base64," + Base64.getEncoder().encodeToString(new byte[64]))))))));
        HttpResponse<String> response = client.post("/chat/completions", body);
        assertEquals(400, response.statusCode());
        assertTrue(response.body().contains("not a PNG, JPEG or GIF image"), response.body());
    }
}
