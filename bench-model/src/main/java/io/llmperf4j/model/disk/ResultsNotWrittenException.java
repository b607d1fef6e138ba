package io.llmperf4j.model.disk;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Some files could not be written (a full disk): names them and the files kept whole, which were still written. None
 * of the failed ones is left under its name, cut or empty ({@link WholeFiles}). When the folder they are written in
 * before their rename could not be made, says which folder and why instead of naming files it never began.
 */
public final class ResultsNotWrittenException extends IOException {
    private final List<String> failed;
    private final List<Path> kept;
    /** The staging folder that could not be made, or null when it was made. */
    private final Path folderNotMade;

    /**
     * @param failed the names of the files not written (absent from the folder)
     * @param kept   the files written whole, in the order written
     */
    public ResultsNotWrittenException(List<String> failed, List<Path> kept, IOException cause) {
        this(failed, kept, cause, null);
    }

    private ResultsNotWrittenException(List<String> failed, List<Path> kept, IOException cause, Path folderNotMade) {
        super(message(failed, kept, cause, folderNotMade), cause);
        this.failed = List.copyOf(failed);
        this.kept = List.copyOf(kept);
        this.folderNotMade = folderNotMade;
    }

    /** No file could be begun: {@code folder}, where each is written before its rename, could not be made. */
    static ResultsNotWrittenException folderNotMade(Path folder, List<Path> kept, IOException cause) {
        return new ResultsNotWrittenException(List.of(), kept, cause, folder);
    }

    /**
     * This failure with {@code earlier} kept too: the files a command wrote whole before the write that failed, so
     * that its one error line names every file it kept (a sweep's table before its page).
     */
    public ResultsNotWrittenException keptAfter(List<Path> earlier) {
        return new ResultsNotWrittenException(failed, merged(earlier, kept), (IOException) getCause(), folderNotMade);
    }

    /** The folder files are written in before their rename when it could not be made (no file was begun), else null. */
    public Path folderNotMade() {
        return folderNotMade;
    }

    private static List<Path> merged(List<Path> first, List<Path> then) {
        List<Path> all = new ArrayList<>(first);
        then.stream().filter(p -> !all.contains(p)).forEach(all::add);
        return all;
    }

    /** The names of the files that could not be written (absent from the folder); empty when none was begun. */
    public List<String> failed() {
        return failed;
    }

    /** The files written whole, in the order written. */
    public List<Path> kept() {
        return kept;
    }

    private static String message(List<String> failed, List<Path> kept, IOException cause, Path folderNotMade) {
        String what = folderNotMade != null
                ? "could not make " + folderNotMade + ", the folder files are written in before they are renamed "
                        + "into place (" + reason(cause) + ")"
                : "could not write " + String.join(", ", failed.isEmpty() ? List.of("a file") : failed)
                        + " (" + reason(cause) + ")";
        return what + (kept.isEmpty() ? "; no file was written whole"
                : "; kept whole: " + String.join(", ", kept.stream().map(p -> p.getFileName().toString()).toList()));
    }

    /** The operating system's words ("No space left on device"), without Java's exception names. */
    static String reason(IOException e) {
        if (e instanceof FileSystemException fs && fs.getReason() != null) return fs.getReason();
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }
}
