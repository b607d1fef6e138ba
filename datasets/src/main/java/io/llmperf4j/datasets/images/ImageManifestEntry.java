package io.llmperf4j.datasets.images;

import com.fasterxml.jackson.databind.JsonNode;
import io.llmperf4j.model.ImageInput;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One image as a workload manifest records it, enough for a replay to send the same bytes:
 * <pre>
 * {"source":"synthetic","seed":11111,"width":512,"height":512,"format":"png","bytes":786970,"sha256":"…"}
 * {"source":"synthetic","seed":11112,"width":512,"height":512,"format":"jpeg","quality":85,"bytes":…,"sha256":"…"}
 * {"source":"file","path":"/data/cat.png","width":640,"height":480,"format":"png","bytes":…,"sha256":"…"}
 * {"source":"file","path":"/data/cat.png",…,"url":"http://host/images/cat.png"}
 * {"source":"url","url":"https://host/cat.png"}
 * </pre>
 * A replay makes each image again (a synthetic one from its seed and size, a file from its path) and checks its
 * SHA-256, so changed bytes are caught rather than silently sent.
 */
public final class ImageManifestEntry {
    private ImageManifestEntry() {
    }

    /** The entry of an image of this package. */
    public static Map<String, Object> toJson(ImageInput image) {
        if (!(image instanceof EncodedImage encoded)) {
            throw new IllegalArgumentException("only images of " + ImageLibrary.class.getSimpleName()
                    + " can be written to a manifest, not " + image.getClass().getName());
        }
        Map<String, Object> map = new LinkedHashMap<>();
        ImageSource source = encoded.source();
        if (source instanceof ImageSource.Remote remote) {
            map.put("source", "url");
            map.put("url", remote.url());
            return map;
        }
        if (source instanceof ImageSource.Synthetic s) {
            map.put("source", "synthetic");
            map.put("seed", s.seed());
        } else {
            map.put("source", "file");
            map.put("path", ((ImageSource.File) source).path().toString());
        }
        map.put("width", encoded.width());
        map.put("height", encoded.height());
        map.put("format", encoded.format().formatName());
        if (source instanceof ImageSource.Synthetic s && s.format() == ImageFormat.JPEG) map.put("quality", s.quality());
        map.put("bytes", encoded.byteLength());
        map.put("sha256", encoded.digest());
        if (encoded.sentAsUrl()) map.put("url", encoded.url());
        return map;
    }

    /**
     * The image an entry describes, made (or found) in {@code library}.
     *
     * @throws IllegalArgumentException saying what is malformed or whose bytes differ from the recorded digest
     */
    public static ImageInput fromJson(JsonNode entry, ImageLibrary library) {
        if (entry == null || !entry.isObject()) throw new IllegalArgumentException("an image must be a JSON object");
        String kind = text(entry, "source");
        EncodedImage image;
        switch (kind) {
            case "url":
                return library.remote(text(entry, "url"));
            case "synthetic": {
                ImageFormat format = ImageFormat.parse(text(entry, "format"));
                int quality = format == ImageFormat.JPEG ? integer(entry, "quality") : 0;
                JsonNode seed = entry.path("seed");
                if (!seed.isIntegralNumber() || !seed.canConvertToLong()) {
                    throw new IllegalArgumentException("image seed must be an integer");
                }
                image = library.synthetic(new ImageSource.Synthetic(seed.longValue(), integer(entry, "width"),
                        integer(entry, "height"), format, quality));
                break;
            }
            case "file": {
                JsonNode url = entry.get("url");
                image = library.file(Path.of(text(entry, "path")), url == null || url.isNull() ? null : url.asText());
                break;
            }
            default:
                throw new IllegalArgumentException("unknown image source '" + kind + "' (synthetic, file or url)");
        }
        String recorded = text(entry, "sha256");
        if (!recorded.equals(image.digest())) {
            throw new IllegalArgumentException("image " + image.source() + " has SHA-256 " + image.digest()
                    + " but the manifest recorded " + recorded + (kind.equals("file") ? " (the file changed)"
                    : " (this JDK encodes the image differently from the one that wrote the manifest)"));
        }
        return image;
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) throw new IllegalArgumentException("image " + field + " must be a string");
        return value.asText();
    }

    private static int integer(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isInt()) throw new IllegalArgumentException("image " + field + " must be an integer");
        return value.intValue();
    }
}
