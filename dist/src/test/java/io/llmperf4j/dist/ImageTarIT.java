package io.llmperf4j.dist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The container image that {@code mvn -Pimage package} writes with Jib (dist/target/jib-image.tar), when it was
 * built: its configuration (the embedded server as the default command) and its layers, unpacked into a folder; the
 * image's entrypoint is then run with this machine's java against that folder's jar (no container runtime here; the
 * base image's own java is not run).
 */
class ImageTarIT {
    private static final Path IMAGE = Path.of(System.getProperty("llmperf4j.image.tar"));
    private static final String VERSION = System.getProperty("llmperf4j.version");

    @Test
    void theImageServesByDefaultAndItsEntrypointRunsTheJarItCarries(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isRegularFile(IMAGE), "no image was built (mvn -Pimage package builds it)");
        assertEquals(0, CommandRun.in(dir, "tar", "-xf", IMAGE.toString()).exitCode());
        ObjectMapper json = new ObjectMapper();
        JsonNode manifest = json.readTree(dir.resolve("manifest.json").toFile()).get(0);
        assertEquals("llmperf4j:" + VERSION, manifest.path("RepoTags").get(0).asText());
        JsonNode config = json.readTree(dir.resolve(manifest.path("Config").asText()).toFile()).path("config");
        List<String> entrypoint = strings(config.path("Entrypoint"));
        assertEquals(List.of("serve", "--host", "0.0.0.0", "--port", "8000"), strings(config.path("Cmd")));
        assertTrue(config.path("ExposedPorts").has("8000/tcp"), config.toString());
        assertEquals("java", entrypoint.get(0));
        assertEquals("/opt/llmperf4j/lib/llmperf4j.jar", entrypoint.get(entrypoint.size() - 1));

        Path rootfs = Files.createDirectory(dir.resolve("rootfs"));
        for (JsonNode layer : manifest.path("Layers")) {
            assertEquals(0, CommandRun.in(rootfs, "tar", "-xzf", dir.resolve(layer.asText()).toString()).exitCode());
        }
        Path jar = rootfs.resolve("opt/llmperf4j/lib/llmperf4j.jar");
        assertTrue(Files.isRegularFile(jar), "the image carries the jar");

        List<String> command = new ArrayList<>(entrypoint);
        command.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.set(command.size() - 1, jar.toString());
        List<String> version = new ArrayList<>(command);
        version.add("--version");
        CommandRun v = CommandRun.in(dir, version.toArray(String[]::new));
        assertEquals(0, v.exitCode(), v.output());
        assertTrue(v.output().startsWith("llmperf4j " + VERSION), v.output());
        List<String> serveHelp = new ArrayList<>(command);
        serveHelp.addAll(List.of("serve", "--help"));
        CommandRun help = CommandRun.in(dir, serveHelp.toArray(String[]::new));
        assertEquals(0, help.exitCode(), help.output());
        assertTrue(help.output().contains("--host"), help.output());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
