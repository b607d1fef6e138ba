package io.llmperf4j.tokenize.llama;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** Fetches an npm tarball with {@code npm pack}, which downloads it without installing anything. */
final class NpmPack {
    /** Generous: a cold npm cache on a slow mirror; a hung npm must not hang the build forever. */
    private static final long TIMEOUT_SECONDS = 300;
    static final String NPM_PROPERTY = "llmperf4j.npm";

    private NpmPack() {
    }

    /**
     * Returns {@code destinationDir/tarballFileName}, running {@code npm pack packageSpec} only when the file is not
     * there yet (so a tarball copied in by hand makes the build work offline).
     *
     * @throws IOException with a one-line reason when npm is missing, fails or times out
     */
    static Path fetch(String packageSpec, String tarballFileName, Path destinationDir) throws IOException {
        Path tarball = destinationDir.resolve(tarballFileName);
        if (Files.isRegularFile(tarball)) return tarball;
        Files.createDirectories(destinationDir);

        Path log = Files.createTempFile(destinationDir, "npm-pack", ".log");
        List<String> command = List.of(npmExecutable(), "pack", packageSpec,
                "--pack-destination", destinationDir.toAbsolutePath().toString());
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
        } catch (IOException e) {
            throw new IOException("cannot run npm (" + e.getMessage() + ")", e);
        }
        try {
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("`" + String.join(" ", command) + "` did not finish in " + TIMEOUT_SECONDS + " s");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running npm pack", e);
        }
        if (process.exitValue() != 0 || !Files.isRegularFile(tarball)) {
            throw new IOException("`" + String.join(" ", command) + "` exited with " + process.exitValue()
                    + ": " + lastLine(log));
        }
        Files.deleteIfExists(log);
        return tarball;
    }

    /** {@code -Dllmperf4j.npm=/path/to/npm} overrides the npm found on the PATH. */
    private static String npmExecutable() {
        String configured = System.getProperty(NPM_PROPERTY);
        if (configured != null && !configured.isBlank()) return configured;
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows") ? "npm.cmd" : "npm";
    }

    private static String lastLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) return lines.get(i).strip();
            }
            return "(no output)";
        } catch (IOException e) {
            return "(output unreadable: " + e.getMessage() + ")";
        }
    }
}
