package io.llmperf4j.report.output;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A capacity search's folder is named as one, with the page it has, not as a folder of nothing. */
class ResultsFolderSearchTest {

    @Test
    void aSearchFolderPointsToItsOwnPage(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("m_550_150_search.json"), "{}");
        Files.createDirectories(tmp.resolve("level_01_concurrency_1"));
        IOException e = assertThrows(IOException.class, () -> ResultsFolder.detect(tmp));
        assertEquals(tmp + " is a capacity search's folder: the search writes its own page, m_550_150_search.html, "
                + "beside m_550_150_search.json; give one of its level folders (level_NN_...) for that level's page "
                + "or to compare it", e.getMessage());
    }
}
