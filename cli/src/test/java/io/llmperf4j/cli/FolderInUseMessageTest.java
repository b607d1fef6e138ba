package io.llmperf4j.cli;

import io.llmperf4j.run.ResultsFolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A results folder another run holds is an expected refusal: one line, the words docs/scripting.md quotes, without
 * "error:" or the --debug pointer of a failure the user cannot explain.
 */
class FolderInUseMessageTest {
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b);

    @Test
    void aFolderInUseIsRefusedInTheDocumentedWordsAlone(@TempDir Path dir) {
        // held by "another run" in this JVM: the folder's lock is this process's
        try (ResultsFolder held = ResultsFolder.lock(dir, false, new PrintStream(OutputStream.nullOutputStream()))) {
            CliRun refused = CliRun.of(server.env(), "token-benchmark", "--model", "m",
                    "--max-num-completed-requests", "1", "--no-client-warmup", "--results-dir", dir.toString());
            assertEquals(ExitCodes.FAILURE, refused.exitCode(), refused::toString);
            List<String> lines = refused.err().lines().filter(l -> l.startsWith("llmperf4j: ")).toList();
            assertEquals(1, lines.size(), refused::toString);
            String line = lines.get(0);
            assertTrue(line.startsWith("llmperf4j: results folder " + dir + " is in use by another run (pid "), line);
            assertTrue(line.endsWith("); wait for it to end or choose another --results-dir"), line);
        }
    }
}
