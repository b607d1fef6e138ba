package io.llmperf4j.datasets;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A dataset or manifest file holds something it should not. The message names the file, where in it (a 1-based
 * line, a JSON path such as {@code $[12].conversations[3].from}, or both) and what is wrong:
 * {@code "ShareGPT file /data/sg.json, $[12].conversations[3] (line 40): the turn has no from or role"}.
 */
public class DatasetFormatException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final String location;

    /**
     * @param what     the kind of file, e.g. "ShareGPT file"
     * @param location where in the file, e.g. "line 7" or "$[3].conversations (line 12)"
     * @param problem  what is wrong there
     */
    public DatasetFormatException(String what, Path file, String location, String problem) {
        this(what, file, location, problem, null);
    }

    public DatasetFormatException(String what, Path file, String location, String problem, Throwable cause) {
        super(what + " " + file + ", " + location + ": " + problem, cause);
        this.file = Objects.requireNonNull(file, "file");
        this.location = Objects.requireNonNull(location, "location");
    }

    /** The file, as it was given. */
    public Path file() {
        return file;
    }

    /** Where in the file: "line 7", a JSON path, or both. */
    public String location() {
        return location;
    }
}
