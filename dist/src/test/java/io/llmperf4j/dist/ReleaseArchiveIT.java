package io.llmperf4j.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The release archives that {@code mvn package} leaves in dist/target: their contents, and the unpacked launcher. */
class ReleaseArchiveIT {
    private static final String NAME = System.getProperty("llmperf4j.release.name");
    private static final String VERSION = System.getProperty("llmperf4j.version");
    private static final Path BASE = Path.of(System.getProperty("llmperf4j.archive.base"));
    private static final List<String> EXPECTED = List.of("bin/llmperf4j", "bin/llmperf4j.cmd", "lib/llmperf4j.jar",
            "README.md", "docs/distributed.md", "BENCHMARKS.md", "bench-report/METRICS.md",
            "bench-report/src/main/resources/io/llmperf4j/report/summary.schema.json");

    @Test
    void theZipHoldsTheJarTheLaunchersTheReadmeAndTheDocs() throws IOException {
        Path zip = Path.of(BASE + ".zip");
        assertTrue(Files.isRegularFile(zip), zip + " was not built");
        List<String> names = new ArrayList<>();
        try (ZipFile file = new ZipFile(zip.toFile())) {
            Enumeration<? extends ZipEntry> entries = file.entries();
            while (entries.hasMoreElements()) names.add(entries.nextElement().getName());
            for (String expected : EXPECTED) {
                assertTrue(names.contains(NAME + "/" + expected), expected + " is missing from " + names);
            }
            String cmd = new String(file.getInputStream(file.getEntry(NAME + "/bin/llmperf4j.cmd")).readAllBytes(),
                    StandardCharsets.UTF_8);
            assertTrue(cmd.contains("\r\n"), "Windows line endings");
            assertTrue(cmd.contains("\\lib\\llmperf4j.jar"), cmd);
            assertTrue(cmd.contains("%*"), "passes every argument on");
        }
        assertTrue(names.stream().allMatch(n -> n.startsWith(NAME + "/")), "one top folder: " + names);
    }

    @Test
    void theUnpackedTarLauncherIsExecutableAndPrintsTheVersion(@TempDir Path dir) throws Exception {
        Path tar = Path.of(BASE + ".tar.gz");
        assertTrue(Files.isRegularFile(tar), tar + " was not built");
        assertEquals(0, CommandRun.in(dir, "tar", "-xzf", tar.toString()).exitCode());
        Path home = dir.resolve(NAME);
        for (String expected : EXPECTED) assertTrue(Files.exists(home.resolve(expected)), expected);
        Path launcher = home.resolve("bin/llmperf4j");
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(launcher);
        assertTrue(mode.contains(PosixFilePermission.OWNER_EXECUTE), "mode " + mode);
        String text = Files.readString(launcher);
        assertTrue(text.contains("\"$root/lib/llmperf4j.jar\""), "takes the jar from lib/");
        assertFalse(text.contains("cli/target"), "no trace of the source tree");

        CommandRun version = CommandRun.in(dir, launcher.toString(), "--version");
        assertEquals(0, version.exitCode(), version.output());
        assertTrue(version.output().startsWith("llmperf4j " + VERSION), version.output());
    }

    /** Every relative link of the archive's Markdown leads to a file inside it (a reader has no source tree). */
    @Test
    void everyLinkInTheUnpackedDocsResolves(@TempDir Path dir) throws Exception {
        assertEquals(0, CommandRun.in(dir, "tar", "-xzf", BASE + ".tar.gz").exitCode());
        Path home = dir.resolve(NAME);
        Pattern link = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");
        List<String> broken = new ArrayList<>();
        List<Path> pages;
        try (Stream<Path> files = Files.walk(home)) {
            pages = files.filter(p -> p.toString().endsWith(".md")).toList();
        }
        for (Path page : pages) {
            Matcher m = link.matcher(Files.readString(page));
            while (m.find()) {
                String target = m.group(1);
                if (target.contains("://") || target.startsWith("mailto:")) continue;
                if (!Files.exists(page.getParent().resolve(target))) broken.add(home.relativize(page) + " -> " + target);
            }
        }
        assertTrue(pages.size() > 10, "the docs are in the archive: " + pages);
        assertEquals(List.of(), broken);
    }

    @Test
    void theUnpackedZipLauncherRunsToo(@TempDir Path dir) throws Exception {
        // unzip restores the launcher's mode, which the archive records
        assertEquals(0, CommandRun.in(dir, "unzip", "-q", BASE + ".zip").exitCode());
        CommandRun version = CommandRun.in(dir, dir.resolve(NAME).resolve("bin/llmperf4j").toString(), "--version");
        assertEquals(0, version.exitCode(), version.output());
        assertTrue(version.output().startsWith("llmperf4j " + VERSION), version.output());
    }
}
