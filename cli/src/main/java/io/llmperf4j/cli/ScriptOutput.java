package io.llmperf4j.cli;

import io.llmperf4j.run.RunFailedException;
import io.llmperf4j.run.RunRequest;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Where token-benchmark's output goes under {@code --quiet} and {@code --output-format json}: the console report to
 * stdout (text), to stderr (json) or nowhere (quiet: its warnings go to stderr, {@code Runner#quiet}); progress
 * lines dropped when quiet; with json, the run's summary file printed on stdout at the end, from --results-dir or
 * from a temporary folder deleted afterwards.
 */
final class ScriptOutput implements AutoCloseable {
    /** The progress printer's lines and a sweep level's "done" line: what --quiet leaves out of stderr. */
    static final Pattern PROGRESS = Pattern.compile("^llmperf4j: (\\[[^]]*] )?\\d+(/\\d+)? requests done, .*"
            + "|^llmperf4j: .* done: \\d+/\\d+ ok, .*");
    /** The top-level summary of a run, most telling first: a sweep's, one level's, embeddings', JMH's. */
    private static final List<String> SUMMARY_SUFFIXES = List.of("_sweep.json", "_llmperf4j_summary.json",
            "_embeddings_summary.json", "_jmh.json");
    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());

    private final CliContext context;
    private final boolean quiet;
    private final boolean json;
    private final long startMillis = System.currentTimeMillis();
    private final PrintStream messages;
    private Path temporaryDir;

    private ScriptOutput(CliContext context, boolean quiet, boolean json) {
        this.context = context;
        this.quiet = quiet;
        this.json = json;
        this.messages = quiet || json ? new PrintStream(new LineFilter(context.err(), this::dropped), true,
                StandardCharsets.UTF_8) : context.err();
    }

    static ScriptOutput open(OutputFlags flags, CliContext context) {
        String format = flags.outputFormat.strip().toLowerCase(Locale.ROOT);
        if (!format.equals("text") && !format.equals("json")) {
            throw new UsageException("--output-format must be 'text' or 'json' (got '" + flags.outputFormat + "')");
        }
        return new ScriptOutput(context, flags.quiet, format.equals("json"));
    }

    /** The context options are resolved with: its stderr is {@link #messages()}. */
    CliContext context() {
        return new CliContext(context.env(), json ? messages : context.out(), messages);
    }

    /** The console report: stdout, stderr with json, nowhere when quiet. */
    PrintStream report() {
        return quiet ? NOWHERE : json ? context.err() : context.out();
    }

    /** Notes, warnings, errors and file names; progress too unless quiet. */
    PrintStream messages() {
        return messages;
    }

    /** --results-dir, or with json and no --results-dir a temporary folder for the summary to be read from. */
    Path resultsDir(String flag) {
        Path given = CommonOptions.resultsDir(flag);
        if (given != null || !json) {
            return given;
        }
        try {
            temporaryDir = Files.createTempDirectory("llmperf4j-json-");
            return temporaryDir;
        } catch (IOException e) {
            throw new RunFailedException("--output-format json: cannot create a temporary results folder: "
                    + e.getMessage(), e);
        }
    }

    /** Progress when quiet; the names of files written to the temporary folder, which the user never sees. */
    private boolean dropped(String line) {
        return quiet && PROGRESS.matcher(line).matches()
                || temporaryDir != null && line.startsWith("Results written to " + temporaryDir.toAbsolutePath());
    }

    /** With json: the run's summary on stdout, alone; a note on stderr when the run wrote none. */
    void printSummary(RunRequest request) {
        if (!json) {
            return;
        }
        Path dir = request.common().resultsDir();
        String summary = dir == null ? null : summaryOf(dir);
        if (summary == null) {
            context.err().println("llmperf4j: --output-format json: the run wrote no summary (nothing completed)");
            return;
        }
        context.out().println(summary.strip());
        context.out().flush();
    }

    /** The folder's own summary file, or, for a comparison, an object of its model folders' summaries. */
    private String summaryOf(Path dir) {
        Path own = ownSummary(dir);
        if (own != null) {
            return read(own);
        }
        List<String> members = new ArrayList<>();
        try (Stream<Path> children = Files.list(dir)) {
            for (Path child : children.filter(Files::isDirectory).sorted().toList()) {
                Path summary = ownSummary(child);
                if (summary != null) {
                    members.add("\"" + child.getFileName() + "\": " + read(summary).strip());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return members.isEmpty() ? null : "{\n" + String.join(",\n", members) + "\n}";
    }

    /** The freshest summary directly in {@code dir} written by this run (an --overwrite run may leave older ones). */
    private Path ownSummary(Path dir) {
        for (String suffix : SUMMARY_SUFFIXES) {
            try (Stream<Path> files = Files.list(dir)) {
                Path found = files.filter(f -> f.getFileName().toString().endsWith(suffix))
                        .filter(this::writtenByThisRun)
                        .max(Comparator.comparingLong(ScriptOutput::modified)).orElse(null);
                if (found != null) return found;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return null;
    }

    private boolean writtenByThisRun(Path file) {
        return modified(file) >= startMillis - 2_000; // file times may be coarser than the clock
    }

    private static long modified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new RunFailedException("--output-format json: cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        messages.flush();
        if (temporaryDir != null) {
            try (Stream<Path> files = Files.walk(temporaryDir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                context.err().println("llmperf4j: could not delete the temporary folder " + temporaryDir + ": "
                        + e.getMessage());
            }
        }
    }

    /** Passes stderr through line by line, without the lines {@code dropped} says to leave out. */
    private static final class LineFilter extends OutputStream {
        private final PrintStream target;
        private final Predicate<String> dropped;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LineFilter(PrintStream target, Predicate<String> dropped) {
            this.target = target;
            this.dropped = dropped;
        }

        @Override
        public synchronized void write(int b) {
            line.write(b);
            if (b == '\n') {
                String text = line.toString(StandardCharsets.UTF_8);
                line.reset();
                if (!dropped.test(text.strip())) {
                    target.print(text);
                    target.flush();
                }
            }
        }

        @Override
        public synchronized void flush() {
            target.flush();
        }
    }
}
