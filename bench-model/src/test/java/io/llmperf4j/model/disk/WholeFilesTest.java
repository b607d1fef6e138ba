package io.llmperf4j.model.disk;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The one whole-or-absent rule: a file that cannot be finished leaves the earlier one, or none, and nothing else. */
class WholeFilesTest {

    @Test
    void aFileThatCannotBeFinishedLeavesTheEarlierOneAndNamesItself(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("w.jsonl");
        WholeFiles.writeOne(file, f -> Files.writeString(f, "earlier\n"));
        ResultsNotWrittenException e = assertThrows(ResultsNotWrittenException.class,
                () -> WholeFiles.writeOne(file, f -> {
                    Files.writeString(f, "cut");
                    throw new FileSystemException(f.toString(), null, "No space left on device");
                }));
        assertEquals("could not write w.jsonl (No space left on device); no file was written whole", e.getMessage());
        assertEquals("earlier\n", Files.readString(file));
        assertEquals(List.of(file), everything(dir), "the staging folder is gone");
    }

    @Test
    void aStagingFolderThatCannotBeMadeIsNamedWithItsReason(@TempDir Path dir) throws Exception {
        Path staging = dir.resolve(WholeFiles.STAGING);
        ResultsDisk readOnly = new ResultsDisk() {
            @Override
            public void place(Path staged, Path target) throws IOException {
                SYSTEM.place(staged, target);
            }

            @Override
            public OutputStream open(Path file) throws IOException {
                return SYSTEM.open(file);
            }

            @Override
            public void makeFolder(Path folder) throws IOException {
                if (folder.equals(staging)) {
                    throw new FileSystemException(folder.toString(), null, "Read-only file system");
                }
                SYSTEM.makeFolder(folder);
            }
        };
        ResultsNotWrittenException e;
        try (AutoCloseable disk = ResultsDisk.under(dir, readOnly)) {
            e = assertThrows(ResultsNotWrittenException.class,
                    () -> WholeFiles.write(dir, into -> List.of(Files.writeString(into.resolve("a.csv"), "a\n"))));
        }
        assertEquals("could not make " + staging + ", the folder files are written in before they are renamed into "
                + "place (Read-only file system); no file was written whole", e.getMessage());
        assertEquals(staging, e.folderNotMade());
        assertEquals(List.of(), everything(dir));
        assertNull(new ResultsNotWrittenException(List.of("a.csv"), List.of(), new IOException("x")).folderNotMade());
    }

    private static List<Path> everything(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> !p.equals(dir)).sorted().toList();
        }
    }
}
