package io.llmperf4j.datasets.images;

import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.PromptListDataset;
import io.llmperf4j.datasets.Workload;
import io.llmperf4j.datasets.manifest.WorkloadManifest;
import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImageManifestTest {

    @Test
    void aReplaySendsIdenticalImageBytes(@TempDir Path dir) throws Exception {
        Path cat = dir.resolve("cat.png");
        Files.write(cat, SyntheticImages.encode(new ImageSource.Synthetic(3, 40, 30, ImageFormat.PNG, 0)));
        ImageLibrary library = new ImageLibrary();
        Workload workload = ImageAttachment.attach(ImageAttachmentTest.textWorkload(4),
                ImageOptions.synthetic(2, 64, 32).withFormat(ImageFormat.JPEG, 60), library);
        RequestSpec first = workload.requests().get(0);
        List<ImageInput> withFile = List.of(first.inputs().images().get(0), library.file(cat, null),
                library.remote("https://example.test/dog.jpg"));
        List<RequestSpec> requests = new java.util.ArrayList<>(workload.requests());
        requests.set(0, ImageAttachment.withImages(first, withFile));
        Path manifest = dir.resolve("workload.jsonl");
        WorkloadManifest.write(manifest, requests, workload.manifestHeader(Map.of()));
        String text = Files.readString(manifest, StandardCharsets.UTF_8);
        assertTrue(text.contains("\"images\":[{\"source\":\"synthetic\",\"seed\":11111,\"width\":64,\"height\":32,"
                + "\"format\":\"jpeg\",\"quality\":60,\"bytes\":"), text);
        assertTrue(text.contains("{\"source\":\"url\",\"url\":\"https://example.test/dog.jpg\"}"), text);

        WorkloadManifest read = WorkloadManifest.read(manifest);
        assertArrayEquals(Files.readAllBytes(manifest), read.toBytes(), "read then write gives the file back");
        for (int i = 0; i < requests.size(); i++) {
            List<ImageInput> sent = requests.get(i).inputs().images();
            List<ImageInput> replayed = read.requests().get(i).inputs().images();
            assertEquals(sent.size(), replayed.size());
            for (int j = 0; j < sent.size(); j++) {
                assertEquals(sent.get(j).digest(), replayed.get(j).digest());
                assertEquals(sent.get(j).url(), replayed.get(j).url(), "identical bytes on the wire");
            }
        }
        Files.write(cat, SyntheticImages.encode(new ImageSource.Synthetic(4, 40, 30, ImageFormat.PNG, 0)));
        DatasetFormatException changed = assertThrows(DatasetFormatException.class, () -> WorkloadManifest.read(manifest));
        assertTrue(changed.getMessage().contains("line 2, images[1]: image File[path=" + cat + "] has SHA-256"),
                changed.getMessage());
        assertTrue(changed.getMessage().contains("(the file changed)"), changed.getMessage());
    }

    @Test
    void promptFilesCarryImagePathsAndUrls(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("img"));
        Files.write(dir.resolve("img/a.png"), SyntheticImages.encode(new ImageSource.Synthetic(5, 28, 56, ImageFormat.PNG, 0)));
        Path file = dir.resolve("prompts.jsonl");
        Files.writeString(file, "{\"prompt\":\"describe\",\"max_tokens\":5,\"images\":[\"img/a.png\"]}\n"
                + "{\"prompt\":\"and this\",\"max_tokens\":5,\"images\":[\"https://example.test/b.jpg\"]}\n");
        PromptListDataset dataset = PromptListDataset.load(file);
        DatasetFormatException url = assertThrows(DatasetFormatException.class,
                () -> dataset.workload(Tokenizers.jtokkit("cl100k_base"), 2, 1, null));
        assertTrue(url.getMessage().contains("line 2: image 'https://example.test/b.jpg' is a URL"), url.getMessage());

        Workload workload = dataset.workload(Tokenizers.jtokkit("cl100k_base"), 2, 1, null,
                new ImageReferences(dir, new ImageLibrary(), true, "http://127.0.0.1:8080/files"));
        assertEquals("http://127.0.0.1:8080/files/img/a.png", workload.requests().get(0).inputs().images().get(0).url());
        assertEquals(28 * 56, workload.requests().get(0).inputs().imagePixels());
        assertEquals("https://example.test/b.jpg", workload.requests().get(1).inputs().images().get(0).url());
        Workload inline = PromptListDataset.load(file).workload(Tokenizers.jtokkit("cl100k_base"), 1, 1, null);
        assertTrue(inline.requests().get(0).inputs().images().get(0).url().startsWith("data:image/png;base64,iVBOR"));
        Workload prefixed = io.llmperf4j.datasets.SharedPrefix.prepend(inline, Tokenizers.jtokkit("cl100k_base"), 20);
        assertEquals(inline.requests().get(0).inputs(), prefixed.requests().get(0).inputs(), "a prefix keeps the images");
    }
}
