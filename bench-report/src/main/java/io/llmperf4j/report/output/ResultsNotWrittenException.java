package io.llmperf4j.report.output;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Some of a level's files could not be written (a full disk): names them and the files kept whole, which the run
 * still wrote. None of the failed ones is left under its name, cut or empty ({@link ResultFiles#write}).
 */
public final class ResultsNotWrittenException extends IOException {
    private final List<String> failed;
    private final List<Path> kept;

    ResultsNotWrittenException(List<String> failed, List<Path> kept, IOException cause) {
        super(message(failed, kept, cause), cause);
        this.failed = List.copyOf(failed);
        this.kept = List.copyOf(kept);
    }

    /**
     * This failure with {@code earlier} kept too: the files a command wrote whole before the write that failed, so
     * that its one error line names every file it kept (a sweep's table before its page).
     */
    public ResultsNotWrittenException keptAfter(List<Path> earlier) {
        List<Path> all = new ArrayList<>(earlier);
        kept.stream().filter(p -> !all.contains(p)).forEach(all::add);
        return new ResultsNotWrittenException(failed, all, (IOException) getCause());
    }

    /** The names of the files that could not be written (absent from the folder). */
    public List<String> failed() {
        return failed;
    }

    /** The files written whole, in the order written. */
    public List<Path> kept() {
        return kept;
    }

    private static String message(List<String> failed, List<Path> kept, IOException cause) {
        return "could not write " + String.join(", ", failed) + " (" + reason(cause) + ")"
                + (kept.isEmpty() ? "; no file was written whole"
                : "; kept whole: " + String.join(", ", kept.stream().map(p -> p.getFileName().toString()).toList()));
    }

    /** The operating system's words ("No space left on device"), without Java's exception names. */
    static String reason(IOException e) {
        if (e instanceof FileSystemException fs && fs.getReason() != null) return fs.getReason();
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }
}
