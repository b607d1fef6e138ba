package io.llmperf4j.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.llmperf4j.distributed.testing.LoopbackPorts;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.report.csv.RequestCsvReader;
import io.llmperf4j.server.RequestTiming;
import io.llmperf4j.server.SimulatedServer;
import io.llmperf4j.server.SimulatorConfig;
import io.llmperf4j.tokenize.Tokenizers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A worker JVM stopped with SIGTERM mid-run stops its share before it leaves the cluster: the QA's worker sent 13
 * more requests for 3 s after its signal, which the coordinator had counted as not sent, and the two it had counted
 * as lost finished at the server. Now the server sees exactly the requests the coordinator's files hold, and the
 * worker's last line says it was stopped and how many it sent.
 */
class WorkerSigtermTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String BASE = "meta-llama-Llama-2-7b-chat-hf_200_60";

    @Test
    @Timeout(240)
    void aWorkerStoppedWithSigtermSendsNothingAfterItAndTheServerSeesWhatTheCoordinatorCounts(@TempDir Path tmp)
            throws Exception {
        List<RequestTiming> seen = new CopyOnWriteArrayList<>(); // every request the server admitted, at its end
        try (SimulatedServer server = SimulatedServer.start(SimulatorConfig.builder()
                .timeToFirstToken(Duration.ofMillis(30)).interTokenDelay(Duration.ofMillis(20))
                .promptTokenCounter(Tokenizers.builtInLlama2()).timingListener(seen::add).build())) {
            String cluster = "sigterm-" + java.util.UUID.randomUUID();
            int coordinatorPort = LoopbackPorts.next();
            List<String> ids = List.of("127.0.0.1:" + LoopbackPorts.next(), "127.0.0.1:" + LoopbackPorts.next());
            List<Process> workers = new ArrayList<>();
            List<Path> logs = new ArrayList<>();
            try {
                for (int i = 0; i < ids.size(); i++) {
                    List<String> command = ChildJvm.command(List.of("-Xmx256m"), "worker", "--cluster", cluster,
                            "--bind", ids.get(i), "--member", "127.0.0.1:" + coordinatorPort, "--no-client-warmup");
                    Path log = tmp.resolve("worker-" + i + ".log");
                    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                            .redirectOutput(log.toFile());
                    builder.environment().remove("OPENAI_API_BASE");
                    builder.environment().put("OPENAI_API_KEY", "EMPTY");
                    workers.add(builder.start());
                    logs.add(log);
                }
                Path dist = tmp.resolve("dist");
                List<String> args = new ArrayList<>(List.of("token-benchmark", "--model",
                        "meta-llama/Llama-2-7b-chat-hf", "--mean-input-tokens", "200", "--stddev-input-tokens", "0",
                        "--mean-output-tokens", "60", "--stddev-output-tokens", "0",
                        "--max-num-completed-requests", "40", "--num-concurrent-requests", "4", "--timeout", "120",
                        "--no-client-warmup", "--results-dir", dist.toString(), "--cluster", cluster, "--workers",
                        "2", "--bind", "127.0.0.1:" + coordinatorPort, "--worker-wait", "90"));
                for (String id : ids) args.addAll(List.of("--member", id));
                Map<String, String> env = Map.of("OPENAI_API_BASE", server.baseUrl(), "OPENAI_API_KEY", "EMPTY");
                CompletableFuture<CliRun> coordinator = CompletableFuture.supplyAsync(() ->
                        CliRun.of(env, args.toArray(String[]::new)));

                // each worker's pre-run check, then 4 measured requests ended: the victim has requests in flight
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
                while (completed(seen) < ids.size() + 4 && System.nanoTime() < deadline && !coordinator.isDone()) {
                    Thread.sleep(20);
                }
                Process victim = workers.get(1);
                Signals.send(victim, "TERM");
                assertTrue(victim.waitFor(60, TimeUnit.SECONDS), "the stopped worker did not exit");
                CliRun run = coordinator.get(150, TimeUnit.SECONDS);
                String victimLog = Files.readString(logs.get(1));
                assertEquals(0, run.exitCode(), () -> run + "\n--- victim\n" + victimLog);

                List<RequestRecord> records = RequestCsvReader.read(dist.resolve(BASE + "_requests.csv"));
                JsonNode summary = JSON.readTree(dist.resolve(BASE + "_llmperf4j_summary.json").toFile());
                int sent = summary.at("/run/requests_sent").asInt();
                assertEquals(records.size(), sent, run::toString);
                assertTrue(run.err().contains("worker " + ids.get(1) + " left the cluster mid-run (stopped on its "
                        + "machine)"), run::err);
                // every request the server admitted is one the run counts (plus the two pre-run checks): the victim
                // sent nothing after the coordinator counted its unsent requests as not sent. The server reports a
                // request as it ends; the victim's connections closed with its process
                long waitEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (seen.size() < ids.size() + sent && System.nanoTime() < waitEnd) Thread.sleep(20);
                assertEquals(ids.size() + sent, seen.size(), () -> seen.size() + " admitted by the server against "
                        + sent + " sent: " + run + "\n--- victim\n" + victimLog);
                long victimRecords = records.stream().filter(r -> ids.get(1).equals(r.workerId())).count();
                assertTrue(victimRecords < 20, "it was stopped before sending its 20: " + run);
                // the worker's own last line: stopped, with what it sent
                Matcher m = Pattern.compile("share of run \\S+ stopped \\(this worker got SIGTERM or Ctrl-C\\): "
                        + "(\\d+) requests? sent").matcher(victimLog);
                assertTrue(m.find(), victimLog);
                assertEquals(victimRecords, Long.parseLong(m.group(1)), victimLog + "\n" + run);
                assertTrue(!victimLog.contains("Exception") && !victimLog.contains("\tat "), victimLog);
            } finally {
                for (Process p : workers) p.destroyForcibly();
                for (Process p : workers) p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static long completed(List<RequestTiming> seen) {
        return seen.stream().filter(t -> t.outcome() == RequestTiming.Outcome.COMPLETED).count();
    }
}
