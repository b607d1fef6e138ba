package io.llmperf4j.cli;

import io.llmperf4j.distributed.BuildIdentity;
import io.llmperf4j.distributed.ClusterSettings;
import io.llmperf4j.distributed.Coordinator;
import io.llmperf4j.distributed.HostPort;
import io.llmperf4j.distributed.OtherBuilds;
import io.llmperf4j.distributed.WorkerMember;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker and a coordinator of different builds of llmperf4j meet: each command says in one line which builds met
 * and refuses the pairing with exit code 1, at once (no wait for --worker-wait, no error deep in a task). The other
 * build is a member in this JVM announcing another version ({@link OtherBuilds}), on 127.0.0.1.
 */
class ClusterBuildMismatchCommandTest {
    private static final Map<String, String> ENV =
            Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k");
    private static final BuildIdentity OTHER = OtherBuilds.build("0.0.9");

    @Test
    @Timeout(60)
    void aWorkerRefusesACoordinatorOfAnotherBuildAndExits1() throws IOException {
        String name = "test-" + UUID.randomUUID();
        HostPort c = new HostPort("127.0.0.1", LoopbackPorts.next());
        String w = "127.0.0.1:" + LoopbackPorts.next();
        try (Coordinator other = OtherBuilds.coordinator(new ClusterSettings(name, List.of(c), c), line -> { },
                OTHER)) {
            CliRun run = CliRun.of(ENV, "worker", "--cluster", name, "--bind", w, "--member", c.toString(),
                    "--no-client-warmup");
            assertEquals(ExitCodes.FAILURE, run.exitCode(), run::toString);
            List<String> lines = run.err().lines().toList();
            assertEquals("llmperf4j: error: coordinator " + c + " runs llmperf4j 0.0.9 (wire 0ther000), this worker "
                    + BuildIdentity.current().describe() + ": refused (start this worker from the coordinator's "
                    + "build); leaving the cluster (run with --debug for details)", lines.get(lines.size() - 1),
                    run::toString);
            assertFalse(run.err().contains("\tat "), run::toString);
        }
    }

    @Test
    @Timeout(60)
    void aCoordinatorWhoseOnlyWorkerIsOfAnotherBuildStopsAtOnceWithExit1() throws IOException {
        String name = "test-" + UUID.randomUUID();
        HostPort w = new HostPort("127.0.0.1", LoopbackPorts.next());
        String c = "127.0.0.1:" + LoopbackPorts.next();
        WorkerMember old = OtherBuilds.worker(new ClusterSettings(name, List.of(w), w), OTHER);
        try {
            // the coordinator names the waiting worker, so it joins it at once
            CliRun run = CliRun.of(ENV, "token-benchmark", "--model", "m", "--max-num-completed-requests", "2",
                    "--cluster", name, "--workers", "1", "--bind", c, "--member", w.toString());
            assertEquals(ExitCodes.FAILURE, run.exitCode(), run::toString);
            String builds = "runs llmperf4j 0.0.9 (wire 0ther000)";
            assertTrue(run.err().contains("llmperf4j: cluster: worker " + w + " " + builds + ", this coordinator "
                    + BuildIdentity.current().describe() + ": refused (start the worker from the coordinator's "
                    + "build); it is dealt no share\n"), run::toString);
            assertTrue(run.err().contains("llmperf4j: error: cluster '" + name + "': 1 worker asked for, 0 joined and "
                    + "1 refused, of another build than this coordinator's " + BuildIdentity.current().describe()
                    + ": " + w + " " + builds + "; start every worker from the coordinator's build"), run::toString);
            assertFalse(run.err().contains("\tat "), run::toString);
            assertEquals("", run.out(), run::toString);
        } finally {
            old.instance().getLifecycleService().terminate();
        }
    }
}
