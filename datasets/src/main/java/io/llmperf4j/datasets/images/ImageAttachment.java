package io.llmperf4j.datasets.images;

import io.llmperf4j.datasets.Workload;
import io.llmperf4j.model.ImageInput;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.prompt.PythonRandom;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Adds images to a workload's requests (after any its dataset already gave them). Counts and sizes are drawn with a
 * random stream of their own, seeded by the workload seed, so adding images never changes the prompts. Synthetic
 * image {@code k} of the workload (counted over all requests) has the seed {@code workloadSeed + k % variants}:
 * with a fixed size, {@code variants} distinct images are made and shared by every request.
 */
public final class ImageAttachment {
    /** Offsets the image stream's seed from the prompts' one. */
    static final long STREAM = 0x1A6E_5EEDL;
    /** At most this share of the heap may hold image text. */
    private static final double HEAP_SHARE = 0.5;
    /** OpenAI's vision guide: at most 50 MB of payload per request. */
    static final long BODY_WARNING_BYTES = 50_000_000L;

    private ImageAttachment() {
    }

    /** {@code workload} with images attached as {@code options} say; unchanged when they add none. */
    public static Workload attach(Workload workload, ImageOptions options, ImageLibrary library) {
        if (options.perRequest() == null) return withSummary(workload, options, library);
        if (options.folder() != null && workload.requests().stream().anyMatch(r -> r.inputs().hasImages())) {
            // each line would send its own images and the folder's, and a text-only line a folder image
            throw new IllegalArgumentException("--image-dir adds its files to every request, and the dataset's lines "
                    + "have their own \"images\": use one of the two");
        }
        List<Path> files = options.folder() == null ? List.of() : folderImages(options.folder());
        PythonRandom random = new PythonRandom(workload.seed() ^ STREAM);
        long k = 0;
        List<RequestSpec> requests = new ArrayList<>(workload.requests().size());
        for (RequestSpec request : workload.requests()) {
            int n = options.perRequest().sample(random);
            if (n == 0) {
                requests.add(request);
                continue;
            }
            List<ImageInput> images = new ArrayList<>(request.inputs().images());
            for (int j = 0; j < n; j++, k++) {
                if (!files.isEmpty()) {
                    Path file = files.get((int) (k % files.size()));
                    images.add(library.file(file, options.urlMode()
                            ? options.baseUrl() + "/" + file.getFileName() : null));
                } else {
                    int w = options.widths().sample(random);
                    int h = options.heights().sample(random);
                    long seed = workload.seed() + k % options.variants();
                    images.add(library.synthetic(new ImageSource.Synthetic(seed, w, h, options.format(),
                            options.quality())));
                }
            }
            requests.add(withImages(request, images));
            checkHeap(library); // before the next images, not after an OutOfMemoryError
        }
        Workload attached = new Workload(workload.kind(), workload.sourceId(), workload.sourceSha256(),
                workload.tokenizerId(), workload.seed(), workload.generation(), requests);
        return withSummary(attached, options, library);
    }

    /** {@code request} with {@code images} instead of its own, everything else kept. */
    public static RequestSpec withImages(RequestSpec request, List<ImageInput> images) {
        RequestInputs in = request.inputs();
        return new RequestSpec(request.index(), request.prompt(), request.numberInputTokens(), request.maxTokens(),
                new RequestInputs(in.systemPrompt(), in.history(), images, in.sessionId(), in.turn()));
    }

    /** One line for the run's log: how many images, how many distinct, how much memory they hold. */
    public static String describe(List<RequestSpec> requests) {
        long sent = 0;
        long pixels = 0;
        long bytes = 0;
        Set<ImageInput> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        for (RequestSpec request : requests) {
            sent += request.inputs().images().size();
            pixels += request.inputs().imagePixels();
            bytes += request.inputs().imageBytes();
            distinct.addAll(request.inputs().images());
        }
        long held = 0;
        for (ImageInput image : distinct) held += image.base64() == null ? 0 : image.base64().length();
        // the turns' own images: a later turn's history resends the earlier ones, which the run's figures count
        boolean laterTurns = requests.stream().anyMatch(r -> r.inputs().turn() > 0);
        return String.format(Locale.ROOT, "images: %d in %d requests (%.1f Mpixel, %.1f MB encoded), %d distinct "
                + "held once (%.1f MB of base64)%s", sent, requests.size(), pixels / 1e6, bytes / 1e6,
                distinct.size(), held / 1e6, laterTurns ? "; each session's later turns also resend its earlier "
                + "turns' images (the results count every image sent)" : "");
    }

    private static Workload withSummary(Workload workload, ImageOptions options, ImageLibrary library) {
        boolean any = workload.requests().stream().anyMatch(r -> r.inputs().hasImages());
        if (!any) return workload;
        Map<String, Object> generation = new LinkedHashMap<>(workload.generation());
        Map<String, Object> images = options.parameters();
        images.put("distinct_images", library.size());
        generation.put("images", images);
        return new Workload(workload.kind(), workload.sourceId(), workload.sourceSha256(), workload.tokenizerId(),
                workload.seed(), generation, workload.requests());
    }

    static void checkHeap(ImageLibrary library) {
        checkHeap(library.size(), library.heldChars(), 0, 0);
    }

    /**
     * Refuses the requests, before anything is sent, when their distinct images and {@code inFlight} bodies of the
     * largest request (its images' base64, history images included, encoded into the body while it is sent) would
     * fill more than half the heap; warns when that largest body passes {@link #BODY_WARNING_BYTES}.
     */
    public static void checkBodies(List<RequestSpec> requests, int inFlight, PrintStream err) {
        Set<ImageInput> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        long largest = 0;
        for (RequestSpec request : requests) {
            long body = 0;
            for (ImageInput image : request.inputs().sentImages()) {
                distinct.add(image);
                body += base64Length(image);
            }
            largest = Math.max(largest, body);
        }
        long held = 0;
        for (ImageInput image : distinct) held += base64Length(image);
        checkHeap(distinct.size(), held, largest, inFlight);
        if (largest > BODY_WARNING_BYTES) {
            err.println(String.format(Locale.ROOT, "llmperf4j: warning: the largest request carries %.0f MB of "
                    + "images (base64), more than the 50 MB a request OpenAI accepts; servers may refuse it (the "
                    + "simulator refuses bodies over 16 MiB)", largest / 1e6));
        }
    }

    private static long base64Length(ImageInput image) {
        return image.base64() == null ? 0 : image.base64().length();
    }

    /** The one heap rule: the distinct images held plus the bodies in flight, at most half the heap. */
    private static void checkHeap(int distinct, long heldChars, long bodyChars, int inFlight) {
        long max = Runtime.getRuntime().maxMemory();
        long limit = (long) (max * HEAP_SHARE);
        long bodies = Math.multiplyHigh(bodyChars, inFlight) != 0 ? Long.MAX_VALUE : bodyChars * inFlight;
        if (heldChars + bodies > limit || heldChars + bodies < 0) {
            String flight = inFlight == 0 ? "" : String.format(Locale.ROOT, " and %d requests in flight carry up to "
                    + "%.0f MB each", inFlight, bodyChars / 1e6);
            throw new IllegalArgumentException(String.format(Locale.ROOT, "the %d distinct images need %.0f MB%s, "
                            + "more than half the heap (%.0f MB): use fewer or smaller images per request, fewer "
                            + "sizes or --image-variants, a lower concurrency, or a larger -Xmx",
                    distinct, heldChars / 1e6, flight, max / 1e6));
        }
    }

    private static List<Path> folderImages(Path folder) {
        if (!Files.isDirectory(folder)) throw new IllegalArgumentException("image folder " + folder + " is not a folder");
        try (Stream<Path> entries = Files.list(folder)) {
            List<Path> files = entries.filter(Files::isRegularFile)
                    .filter(p -> p.getFileName().toString().toLowerCase(Locale.ROOT).matches(".*\\.(png|jpe?g|gif)"))
                    .sorted().toList();
            if (files.isEmpty()) {
                throw new IllegalArgumentException("image folder " + folder + " holds no .png, .jpg, .jpeg or .gif file");
            }
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list image folder " + folder + ": " + e.getMessage(), e);
        }
    }
}
