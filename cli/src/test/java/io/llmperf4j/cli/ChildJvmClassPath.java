package io.llmperf4j.cli;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The class path options of the llmperf4j JVMs the tests start ({@link ChildJvm}, the pasted docs' JVMs): the test
 * class path with this module's two class folders as jars, and a class-data-sharing archive of the classes a short
 * token-benchmark loads. A child JVM then maps those classes, parsed and verified already, instead of loading them
 * from the jars: its start and first command were most of the CPU of the tests whose subject is a process (a
 * 4-request token-benchmark child, 3 interleaved pairs at load 30-38: 4.2-5.2 s of CPU without, 2.8-3.5 s with).
 * JDK 17 archives no class from a folder, hence the jars. The archive is made once per build, by the first fork
 * that needs it (a file lock keeps the other waiting), and made again when a class path entry changed; if it
 * cannot be made, the children run on the plain class path, as before.
 */
final class ChildJvmClassPath {
    /** How long the archive's one token-benchmark may take on a loaded machine. */
    private static final long DUMP_TIMEOUT_SECONDS = 180;
    private static List<String> options;

    private ChildJvmClassPath() {
    }

    /** {@code -cp <class path>}, with the archive's options before it when there is one. */
    static synchronized List<String> options() {
        if (options == null) options = prepare();
        return options;
    }

    /** The test class path, as surefire gives it to this fork. */
    static String testClassPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    private static List<String> prepare() {
        String classPath = testClassPath();
        List<Path> entries = Stream.of(classPath.split(File.pathSeparator)).map(Path::of).toList();
        Path testClasses = entries.stream().filter(Files::isDirectory).findFirst().orElse(null);
        if (testClasses == null) return List.of("-cp", classPath);
        Path work = testClasses.toAbsolutePath().getParent().resolve("child-jvm");
        try {
            Files.createDirectories(work);
            try (FileChannel lockFile = FileChannel.open(work.resolve(".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
                 FileLock ignored = lockFile.lock()) {
                return archived(entries, work);
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("child JVMs without a class-data-sharing archive: " + e);
            return List.of("-cp", classPath);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of("-cp", classPath);
        }
    }

    /** The options with the archive, made first unless the one there was made from this very class path. */
    private static List<String> archived(List<Path> entries, Path work) throws IOException, InterruptedException {
        Path archive = work.resolve("classes.jsa");
        Path fingerprintFile = work.resolve("fingerprint");
        String fingerprint = fingerprint(entries);
        List<String> jarred = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Path entry = entries.get(i);
            jarred.add(Files.isDirectory(entry) ? work.resolve("folder-" + i + ".jar").toString() : entry.toString());
        }
        String jarredPath = String.join(File.pathSeparator, jarred);
        // the JVM prints a warning on stdout when an archive does not match the class path: none is wanted there
        List<String> withArchive = List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:disable", "-cp", jarredPath);
        if (Files.isRegularFile(archive) && Files.isRegularFile(fingerprintFile)
                && Files.readString(fingerprintFile).equals(fingerprint)) {
            return withArchive;
        }
        Files.deleteIfExists(fingerprintFile);
        for (int i = 0; i < entries.size(); i++) {
            if (Files.isDirectory(entries.get(i))) jar(entries.get(i), Path.of(jarred.get(i)));
        }
        Path dumping = work.resolve("classes.jsa.partial");
        Files.deleteIfExists(dumping);
        Path results = work.resolve("dump-run");
        deleteTree(results);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // the embedded simulator (no endpoint set) and a quick client warm-up: the server's, the client's, the
        // tokenizer's and the report's classes
        ProcessBuilder dump = new ProcessBuilder(java, "-XX:ArchiveClassesAtExit=" + dumping,
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Dllmperf4j.client-warmup=quick", "-cp", jarredPath,
                Main.class.getName(), "token-benchmark", "--max-num-completed-requests", "2",
                "--mean-output-tokens", "8", "--stddev-output-tokens", "0", "--results-dir", results.toString())
                .directory(work.toFile()).redirectErrorStream(true)
                .redirectOutput(work.resolve("dump.log").toFile());
        for (String variable : List.of("OPENAI_API_BASE", "OPENAI_API_KEY", "ANTHROPIC_API_BASE",
                "ANTHROPIC_API_KEY")) {
            dump.environment().remove(variable);
        }
        Process process = dump.start();
        if (!process.waitFor(DUMP_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new IOException("the archive's run did not end in " + DUMP_TIMEOUT_SECONDS + " s");
        }
        if (process.exitValue() != 0 || !Files.isRegularFile(dumping)) {
            throw new IOException("the archive's run exited " + process.exitValue() + ": see " + work.resolve("dump.log"));
        }
        Files.move(dumping, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(fingerprintFile, fingerprint);
        return withArchive;
    }

    /**
     * What the archive depends on: the JVM, and each class path entry's files with their sizes and times (the JVM
     * checks a jar's size and time against the archive's record of it; the folders are jarred anew when they change).
     */
    private static String fingerprint(List<Path> entries) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        StringBuilder text = new StringBuilder(System.getProperty("java.home")).append('\n')
                .append(System.getProperty("java.vm.version")).append('\n');
        for (Path entry : entries) {
            text.append(entry).append('\n');
            if (!Files.exists(entry)) continue;
            try (Stream<Path> files = Files.walk(entry)) {
                for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                    BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                    text.append(' ').append(entry.relativize(file)).append(' ').append(attributes.size()).append(' ')
                            .append(attributes.lastModifiedTime().toMillis()).append('\n');
                }
            }
        }
        return HexFormat.of().formatHex(digest.digest(text.toString().getBytes(StandardCharsets.UTF_8))) + "\n";
    }

    /** {@code folder}'s files and folders as {@code jar}, no manifest (a class folder has none either). */
    private static void jar(Path folder, Path jar) throws IOException {
        Path partial = jar.resolveSibling(jar.getFileName() + ".partial");
        try (OutputStream file = Files.newOutputStream(partial);
             JarOutputStream out = new JarOutputStream(file);
             Stream<Path> walk = Files.walk(folder)) {
            for (Path path : walk.sorted().toList()) {
                if (path.equals(folder)) continue;
                String name = folder.relativize(path).toString().replace(File.separatorChar, '/');
                if (Files.isDirectory(path)) {
                    out.putNextEntry(new JarEntry(name + "/"));
                } else {
                    out.putNextEntry(new JarEntry(name));
                    Files.copy(path, out);
                }
                out.closeEntry();
            }
        }
        Files.move(partial, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(path);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
