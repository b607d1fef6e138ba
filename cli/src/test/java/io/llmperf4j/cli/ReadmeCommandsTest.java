package io.llmperf4j.cli;

import io.llmperf4j.run.ClientWarmup;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every shell command of README.md and the documents it links to, pasted into bash as a user would, and the
 * notebook's Python snippet after the README's own first command. Commands run for real against the simulator:
 * those without --model against the embedded one the command starts itself, those naming a model (a real
 * endpoint's) against a fast simulator this test starts, which also stands in for every URL the documents name but
 * those of a server a block starts itself (`serve --port 8000 &`), which serves its block as written but for its
 * port: a free one per run stands for the documents' 8000 (see {@link #servedPortsMoved}). Three
 * kinds are not run, each for its reason: the build (mvn: it runs this test), the benchmark scripts (minutes by
 * design), and commands that last minutes or need other machines by design (--duration, --iterations, --cluster,
 * worker), which are parsed and checked as the command would check them instead. Pages are pasted side by side, each
 * page's blocks in order; the benchmarks after the README's first leave out the client's warm-up (CPU only, never
 * the endpoint's requests nor the files) and a sweep's pauses between levels.
 *
 * <p>The README's commands go through the project's own {@code bin/llmperf4j}, a fresh JVM each, as its reader runs
 * them. Every other page's go through a launcher that pastes them into one JVM of the page's own, started in the
 * page's folder ({@link ResidentCli}): each command still runs through {@link Main}'s parsing of the words bash
 * gives it, with the environment, output redirections and exit code of the shell that typed it, and a background
 * one ends when bash kills it; what is no longer paid per command is a JVM's start and the loading and compiling of
 * the same classes, which were most of this test's CPU.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ReadmeCommandsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern BLOCK = Pattern.compile("(?m)^```(bash|python)\\n(.*?)^```", Pattern.DOTALL);
    private static final Pattern LINK = Pattern.compile("\\]\\(([A-Za-z0-9_./-]+\\.md)[)#]");
    private static final Pattern URL = Pattern.compile("https?://[A-Za-z0-9.-]+(:\\d+)?/v1");
    private static final Pattern SERVED = Pattern.compile("bin/llmperf4j serve --port (\\d+)");
    private static final List<String> LONG_BY_DESIGN = List.of(" worker ", "--cluster", "--duration",
            "--iterations", "--search ");
    /**
     * Pages pasted at once; see the test for why more than one. Four since a page's later commands run in its JVM,
     * no longer each a JVM's start: a block's time is mostly its simulator's delays.
     */
    private static final int PAGES_AT_ONCE = 4;
    /** A fresh JVM's command (the README's) against one in its page's JVM, for the order pages start in. */
    private static final int FRESH_JVM_COST = 3;
    /** One block's own run at most, counted from its start (not from when its page waited for a thread). */
    private static final Duration BLOCK_TIMEOUT = Duration.ofSeconds(300);

    // stands in for the documents' real endpoints: tokens as fast as the client reads them
    @RegisterExtension
    static final TestServer server = TestServer.of(b -> b.timeToFirstToken(Duration.ofMillis(1))
            .interTokenDelay(Duration.ZERO).tokensPerChunk(4));

    record Block(Path file, int line, String language, String text) {
        @Override
        public String toString() {
            return ROOT.relativize(file) + ":" + line;
        }
    }

    /** README.md and every document it links to, each once. */
    static List<Path> documents() {
        Set<Path> docs = new LinkedHashSet<>();
        Path readme = ROOT.resolve("README.md");
        docs.add(readme);
        Matcher link = LINK.matcher(read(readme));
        while (link.find()) {
            Path doc = ROOT.resolve(link.group(1)).normalize();
            if (Files.isRegularFile(doc)) docs.add(doc);
        }
        return List.copyOf(docs);
    }

    static List<Block> blocks(String language) {
        List<Block> blocks = new ArrayList<>();
        for (Path doc : documents()) {
            String text = read(doc);
            Matcher m = BLOCK.matcher(text);
            while (m.find()) {
                if (m.group(1).equals(language)) {
                    int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
                    blocks.add(new Block(doc, line, language, m.group(2)));
                }
            }
        }
        return blocks;
    }

    /** One command of a block: its lines with continuations and here-document bodies. */
    record Command(String text) {
        String kind() {
            if (text.startsWith("mvn ")) return "skip: the build (it runs this very test)";
            if (text.startsWith("scripts/")) return "skip: a benchmark script, minutes by design";
            if (text.contains("<version>")) {
                return "skip: the release archive or image (built after this module; dist's ITs unpack and run it)";
            }
            if (text.startsWith("docker ") || text.startsWith("podman ")) return "skip: no container engine here";
            if (text.startsWith("#") || text.isBlank()) return "comment";
            if (text.contains("bin/llmperf4j") && LONG_BY_DESIGN.stream().anyMatch(text::contains)) return "check";
            return "run";
        }
    }

    static List<Command> commands(String block) {
        List<Command> commands = new ArrayList<>();
        List<String> lines = block.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            StringBuilder command = new StringBuilder(lines.get(i));
            String heredoc = null;
            Matcher h = Pattern.compile("<<-?'?([A-Z]+)'?").matcher(lines.get(i));
            if (h.find()) heredoc = h.group(1);
            while (i + 1 < lines.size() && (heredoc != null || lines.get(i).endsWith("\\"))) {
                String next = lines.get(++i);
                command.append('\n').append(next);
                if (next.equals(heredoc)) {
                    heredoc = null;
                    if (i + 1 < lines.size() && lines.get(i + 1).startsWith("bin/")) break;
                }
            }
            commands.add(new Command(command.toString()));
        }
        return commands;
    }

    @Test
    void everyShellCommandOfTheReadmeAndItsDocumentsWorksWhenPasted(@TempDir Path work) throws Exception {
        Path records = Files.createDirectories(work.resolve("checked-args"));
        List<String> ran = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        List<Block> blocks = blocks("bash");
        assertTrue(blocks.size() >= 8, "README and docs hold shell blocks: " + blocks);
        Path readme = ROOT.resolve("README.md");
        // a reader pastes a page's blocks one after the other, into one folder per page
        Map<Path, List<Pasted>> pages = new LinkedHashMap<>();
        for (Block block : blocks) {
            Path script = Files.writeString(work.resolve("block-" + blocks.indexOf(block) + ".sh"),
                    script(block, blocks.indexOf(block) == 0, records, ran, skipped));
            Path folder = work.resolve(block.file().getFileName().toString());
            boolean realLauncher = block.file().equals(readme);
            if (!Files.isDirectory(folder)) {
                Files.createDirectories(folder);
                if (realLauncher) installRealLauncher(folder);
            }
            if (realLauncher) {
                // the real launcher runs what it is given: a command of its page may not be one only checked
                assertFalse(Files.readString(script).contains("LLMPERF4J_RECORD_ARGS"), block
                        + " is pasted through the real launcher, which would run its long command for real");
            }
            pages.computeIfAbsent(block.file(), f -> new ArrayList<>()).add(new Pasted(block, script, folder,
                    work.resolve("block-" + blocks.indexOf(block) + ".log"), realLauncher));
        }
        // pages share nothing (a server a block starts gets a port of its own, each page its own JVM), so they are
        // pasted side by side: most of a block's time is the simulator's delays, not CPU
        ExecutorService pool = Executors.newFixedThreadPool(PAGES_AT_ONCE);
        Map<Block, CompletableFuture<Pasted.Outcome>> outcomes = new LinkedHashMap<>();
        for (Block block : blocks) outcomes.put(block, new CompletableFuture<>());
        Map<Path, Path> jvmLogs = new ConcurrentHashMap<>(); // page -> its resident JVM's own output
        try {
            // each page is one task, its blocks in order, each once the one before it worked (null: not run); the
            // longest pages start first, so that the last page to start is a short one and none waits for a thread
            // behind the others (a page's later block once queued behind every other page's first)
            List<List<Pasted>> longestFirst = new ArrayList<>(pages.values());
            longestFirst.sort(Comparator.comparingInt(ReadmeCommandsTest::estimatedCost).reversed());
            for (List<Pasted> page : longestFirst) {
                pool.execute(() -> paste(page, work, outcomes, jvmLogs));
            }
            List<String> seconds = new ArrayList<>(); // where the suite's time goes
            for (Map.Entry<Block, CompletableFuture<Pasted.Outcome>> entry : outcomes.entrySet()) {
                Block block = entry.getKey();
                // no deadline of its own: a page may wait for a thread behind the others, each block's run is
                // bounded by itself (BLOCK_TIMEOUT) and the collection by the class's @Timeout
                Pasted.Outcome outcome = entry.getValue().get();
                assertTrue(outcome != null, block + " ran: the block before it on its page failed");
                seconds.add(String.format("%5.1f s %s", outcome.seconds(), block));
                String jvmLog = jvmLogs.containsKey(block.file()) ? read(jvmLogs.get(block.file())) : "";
                assertTrue(outcome.ended(), block + " ended");
                assertEquals(0, outcome.exit(), block + " works when pasted:\n"
                        + Files.readString(outcome.pasted().script()) + "\n--- output\n" + outcome.log()
                        + "\n--- the page's JVM's own output\n" + jvmLog);
                assertFalse(outcome.log().contains("llmperf4j: error"), block + ":\n" + outcome.log());
                // a block's server that could not bind would leave its benchmark to whatever else listens there
                assertFalse(outcome.log().contains("could not bind"), block + ":\n" + outcome.log());
            }
            // what a page's commands wrote to System.out or System.err from a thread that outlived its command
            for (Map.Entry<Path, Path> jvmLog : jvmLogs.entrySet()) {
                String output = read(jvmLog.getValue());
                assertFalse(output.contains("llmperf4j: error") || output.contains("could not bind"),
                        ROOT.relativize(jvmLog.getKey()) + "'s JVM:\n" + output);
            }
            int checked = checkRecordedCommands(records);
            System.out.println("README commands run:\n  " + String.join("\n  ", ran) + "\nnot run:\n  "
                    + String.join("\n  ", skipped) + "\nblocks' wall time:\n  " + String.join("\n  ", seconds));
            assertTrue(ran.size() - checked >= 8, "commands run for real: " + ran);
            assertTrue(checked >= 4, "long commands parsed and checked: " + checked);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Pastes one page's blocks in order, each once the one before it worked (its outcome null: not run). A page that
     * runs {@code bin/llmperf4j} gets its launcher first: the README's the real one, with a fresh JVM per command,
     * every other page one that pastes its commands into a JVM of the page's own ({@link ResidentCli}), ended with
     * the page.
     */
    private static void paste(List<Pasted> page, Path work, Map<Block, CompletableFuture<Pasted.Outcome>> outcomes,
            Map<Path, Path> jvmLogs) {
        Path folder = page.get(0).folder();
        ResidentLauncher resident = null;
        boolean worked = true;
        int next = 0;
        try {
            if (!page.get(0).realLauncher()) {
                String residentLines = "";
                if (estimatedCost(page) > 0) {
                    Path log = work.resolve(folder.getFileName() + ".jvm.log");
                    jvmLogs.put(page.get(0).block().file(), log);
                    resident = ResidentLauncher.start(folder.toRealPath(), java(), log,
                            withoutEndpoint(new ProcessBuilder()));
                    residentLines = resident.launcherLines();
                }
                installLauncher(folder, residentLines);
            }
            for (; next < page.size(); next++) {
                Pasted pasted = page.get(next);
                CompletableFuture<Pasted.Outcome> outcome = outcomes.get(pasted.block());
                try {
                    Pasted.Outcome result = worked ? pasted.run() : null;
                    worked = result != null && result.worked();
                    outcome.complete(result);
                } catch (RuntimeException | Error e) {
                    worked = false;
                    outcome.completeExceptionally(e);
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            for (; next < page.size(); next++) outcomes.get(page.get(next).block()).completeExceptionally(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            for (; next < page.size(); next++) outcomes.get(page.get(next).block()).completeExceptionally(e);
        } finally {
            if (resident != null) {
                try {
                    resident.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * A page's time before it runs, for the order pages start in: the commands of {@code bin/llmperf4j} it runs for
     * real, most with their own embedded simulator, whose delays are where a block's time goes (a sweep's levels
     * against this test's fast server add little), a fresh JVM's more than one in its page's JVM. A static estimate:
     * no earlier run's times are at hand. Zero: the page needs no JVM of its own.
     */
    private static int estimatedCost(List<Pasted> page) {
        int cost = 0;
        for (Pasted pasted : page) {
            for (Command command : commands(pasted.block().text())) {
                if (command.kind().equals("run")) cost += command.text().split("bin/llmperf4j ", -1).length - 1;
            }
        }
        return page.get(0).realLauncher() ? cost * FRESH_JVM_COST : cost;
    }

    /**
     * The script a block is pasted as, with what it runs and skips added to {@code ran} and {@code skipped}; with
     * {@code warmUp} its benchmarks warm the client up as the command does by default.
     */
    private static String script(Block block, boolean warmUp, Path records, List<String> ran, List<String> skipped) {
        // a server a block starts in the background (`serve ... &`) ends with the block and has exited (its port
        // closed) when the block's bash does: it never outlives its block nor the test
        StringBuilder script = new StringBuilder(
                "set -eo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT\n");
        String text = endpointsReplaced(block.text());
        boolean exportsBase = text.contains("export OPENAI_API_BASE=");
        for (Command command : commands(text)) {
            if (command.text().startsWith("mvn ") && command.text().contains(" && bin/llmperf4j")) {
                // build, then run: the build already ran, the rest is pasted
                command = new Command(command.text().substring(command.text().indexOf("bin/llmperf4j")));
            }
            String kind = command.kind();
            String line = command.text();
            if (kind.startsWith("skip")) {
                skipped.add(block + " " + firstLine(line) + " (" + kind + ")");
                line = "# " + kind;
            } else if (kind.equals("check")) {
                line = "LLMPERF4J_RECORD_ARGS=\"" + records + "\" " + line;
                ran.add(block + " " + firstLine(command.text()) + " (parsed and checked)");
            } else if (kind.equals("run")) {
                if (line.startsWith("bin/llmperf4j") && line.contains("--model") && !exportsBase) {
                    // a command for a real endpoint: the simulator stands in for it
                    line = "OPENAI_API_BASE=" + server.baseUrl() + " OPENAI_API_KEY=EMPTY " + line;
                }
                if (line.contains("token-benchmark ") && line.contains("-sweep ")
                        && !line.contains("--sleep-between")) {
                    // the levels run as pasted; only the pause between them (5 s each, for a real server's
                    // queue to drain) is left out, the suite's time being the CI's
                    line = line.replaceFirst("token-benchmark ", "token-benchmark --sleep-between 0 ");
                }
                if (line.contains("token-benchmark ") && !warmUp && !line.contains("-client-warmup")) {
                    // the client's warm-up, up to 14 s of CPU against an in-process responder (never the endpoint,
                    // never an error: one that cannot run is skipped), is left out after the README's first
                    // command, which keeps it; the endpoint sees the same requests and the files are the same
                    line = line.replaceFirst("token-benchmark ", "token-benchmark --no-client-warmup ");
                }
                if (!line.startsWith("export ")) ran.add(block + " " + firstLine(command.text()));
            }
            script.append(line).append('\n');
        }
        return script.toString();
    }

    /** A block ready to paste: its script, its page's folder and its own log. */
    record Pasted(Block block, Path script, Path folder, Path log, boolean realLauncher) {
        record Outcome(Pasted pasted, boolean ended, int exit, String log, double seconds) {
            boolean worked() {
                return ended && exit == 0;
            }
        }

        /**
         * Pastes the block into bash, a server it starts moved to a free port just before; a block that outlasts
         * {@link #BLOCK_TIMEOUT} (or a test that is interrupted) is ended with everything it started.
         */
        Outcome run() {
            Process bash = null;
            try {
                Files.writeString(script, servedPortsMoved(Files.readString(script)));
                // appended to, so that a command the page's JVM writes for (through its own opening of the
                // shell's output) and the shell's other commands write in turn, none over another
                ProcessBuilder pasted = new ProcessBuilder("bash", script.toString()).directory(folder.toFile())
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
                withoutEndpoint(pasted);
                if (realLauncher) {
                    // the launcher's java, and the quick client warm-up of every other command (see java())
                    pasted.environment().put("JAVA_HOME", System.getProperty("java.home"));
                    pasted.environment().put("LLMPERF4J_JAVA_OPTS", "-D" + ClientWarmup.Budget.CAP_PROPERTY + "=quick");
                }
                long started = System.nanoTime();
                bash = pasted.start();
                boolean ended = bash.waitFor(BLOCK_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                if (!ended) endWithChildren(bash);
                return new Outcome(this, ended, bash.exitValue(), read(log), (System.nanoTime() - started) / 1e9);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                // its trap's `wait` never ran: a server left behind would hold its port and a core
                if (bash != null && bash.isAlive()) endWithChildren(bash);
            }
        }

        /** Kills bash and what it started, children first (once bash is gone they are no longer its descendants). */
        private static void endWithChildren(Process bash) {
            bash.descendants().forEach(ProcessHandle::destroyForcibly);
            bash.destroyForcibly();
            try {
                bash.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The script with each port a block serves on ({@code serve --port 8000}) and the URLs naming it on
     * 127.0.0.1 moved to a free port of this machine, the rest as pasted. Port 8000 is shared with everything else
     * on the machine (this test in another checkout or CI fork, a developer's own vLLM, whose default it is): a
     * block's {@code serve} could not bind it, and its {@code --wait-for-server} then benchmarked whichever server
     * held it. No lock in this JVM covers those; a port nothing else is given does, and the port's number is the one
     * part of a block that depends on the machine.
     */
    static String servedPortsMoved(String script) {
        Matcher served = SERVED.matcher(script);
        Set<String> ports = new LinkedHashSet<>();
        while (served.find()) ports.add(served.group(1));
        for (String port : ports) {
            String free = Integer.toString(ClosedPort.find());
            script = script.replaceAll("(bin/llmperf4j serve --port )" + port + "\\b", "$1" + free)
                    .replaceAll("127\\.0\\.0\\.1:" + port + "\\b", "127.0.0.1:" + free);
        }
        return script;
    }

    /**
     * The block with every endpoint URL pointed at this test's simulator, except those of a server the block starts
     * itself ({@code serve --port P} and then {@code http://127.0.0.1:P/v1}): their flags are part of the example.
     */
    static String endpointsReplaced(String block) {
        Matcher served = SERVED.matcher(block);
        Set<String> own = new LinkedHashSet<>();
        while (served.find()) own.add("http://127.0.0.1:" + served.group(1) + "/v1");
        return URL.matcher(block).replaceAll(m -> own.contains(m.group()) ? m.group()
                : Matcher.quoteReplacement(server.baseUrl()));
    }

    /** The commands that last minutes or need other machines: parsed and resolved as the command would, not run. */
    private static int checkRecordedCommands(Path records) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(records)) {
            files = s.filter(f -> f.getFileName().toString().startsWith("args.")).sorted().toList();
        }
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        CliContext context = new CliContext(server.env(), sink, sink);
        for (Path file : files) {
            String[] args = Files.readString(file).split("\0");
            CommandLine root = Main.commandLine(context);
            CommandLine.ParseResult parsed = root.parseArgs(args).subcommand();
            Object command = parsed.commandSpec().userObject();
            if (command instanceof TokenBenchmarkCommand tb) {
                TokenBenchmarkOptions.resolve(tb, context); // every check a run makes before it starts
            } else if (command instanceof WorkerCommand w) {
                ClusterFlags.settings(w.cluster, w.members, w.bind);
            }
        }
        return files.size();
    }

    @Test
    void theNotebookSnippetWorksAfterTheReadmesFirstCommand(@TempDir Path work) throws Exception {
        installLauncher(work, "");
        String first = commands(blocks("bash").get(0).text()).get(0).text();
        assertTrue(first.startsWith("mvn ") && first.contains("&& bin/llmperf4j"), first);
        String command = first.substring(first.indexOf("bin/llmperf4j")); // the build already ran

        List<Block> python = blocks("python");
        assertEquals(1, python.size(), "the notebook snippet: " + python);
        Path snippet = Files.writeString(work.resolve("snippet.py"), python.get(0).text());
        Assumptions.assumeTrue(bash(work, "command -v python3") == 0, "python3 is not installed");
        assertEquals(0, bash(work, "python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read())' "
                + snippet), "the snippet is valid Python");
        // asked before the command runs: without pandas its run would only repeat README.md:3 of the test above
        Assumptions.assumeTrue(bash(work, "python3 -c 'import pandas'") == 0, "pandas is not installed "
                + "(python3 -c 'import pandas' failed): the snippet was parsed, not run; tests never pip install");
        assertEquals(0, bash(work, command), command);
        assertEquals(0, bash(work, "python3 snippet.py > snippet.out 2>&1"), () -> read(work.resolve("snippet.out")));
        String out = read(work.resolve("snippet.out"));
        assertTrue(out.contains("TTFT p90 (ms):"), out);
    }

    /**
     * {@code bin/llmperf4j} in {@code work}: this build's command line on the test's class path, {@code before}'s
     * lines first (a page's JVM's, see {@link ResidentLauncher#launcherLines}), then a fresh JVM for what they left.
     */
    private static void installLauncher(Path work, String before) throws IOException {
        Path bin = Files.createDirectories(work.resolve("bin"));
        String launcher = String.join("\n",
                "#!/usr/bin/env bash",
                "if [ -n \"${LLMPERF4J_RECORD_ARGS:-}\" ]; then",
                // a block may kill its background commands (`kill %1 %2`) at once: a record is whole or absent
                "  trap '' TERM",
                "  record=\"$(mktemp \"$LLMPERF4J_RECORD_ARGS/partial.XXXXXX\")\"",
                "  printf '%s\\0' \"$@\" > \"$record\"",
                "  mv \"$record\" \"$LLMPERF4J_RECORD_ARGS/args.${record##*.}\"",
                "  exit 0",
                "fi",
                before + "exec " + java().stream().map(word -> "'" + word + "'").collect(Collectors.joining(" "))
                        + " io.llmperf4j.cli.Main \"$@\"",
                "");
        Path file = Files.writeString(bin.resolve("llmperf4j"), launcher);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /**
     * The java command and options of a command's JVM (a fresh one or a page's), with the test's class path: the
     * README's launcher's options are its own, the others are for this test's time.
     */
    private static List<String> java() {
        List<String> java = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dai.djl.offline=true",
                // the class path's bytecode (this build's, as in this test's JVM) is not verified again in each JVM,
                // nor does each keep a perf-data file: no block reads either, and they were ~10 % of a command's
                // CPU (2026-12-07, a default token-benchmark, three interleaved pairs at load 20: 2.72 s -> 2.35 s
                // user+sys)
                "-XX:+UnlockDiagnosticVMOptions", "-XX:-BytecodeVerificationRemote", "-XX:-UsePerfData",
                // the quick warm-up whatever the command: no pasted command's TTFT is read, and the full one (a
                // sweep's, an open loop's: up to 14 s of CPU) was most of this test's time
                "-D" + ClientWarmup.Budget.CAP_PROPERTY + "=quick"));
        // the test's class path, with the class-data-sharing archive of the JVMs the tests start
        java.addAll(ChildJvmClassPath.options());
        return java;
    }

    /**
     * The project's own {@code bin/llmperf4j} in {@code folder}, unchanged: its JVM options, its {@code exec}, its
     * exit codes are pasted too. The jar it runs ({@code cli/target/llmperf4j.jar}, which the build packages after
     * this test) stands for the shaded one: its manifest names the entry point and this test's class path.
     */
    private static void installRealLauncher(Path folder) throws IOException {
        Path bin = Files.createDirectories(folder.resolve("bin"));
        Files.copy(ROOT.resolve("bin/llmperf4j"), bin.resolve("llmperf4j"), StandardCopyOption.COPY_ATTRIBUTES);
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Main.class.getName());
        manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH,
                Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                        .map(entry -> Path.of(entry).toUri().toString()).collect(Collectors.joining(" ")));
        Path jar = Files.createDirectories(folder.resolve("cli/target")).resolve("llmperf4j.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.flush();
        }
    }

    /** A fresh shell, as in the README: no endpoint of the developer's own environment. */
    private static ProcessBuilder withoutEndpoint(ProcessBuilder shell) {
        for (String variable : List.of("OPENAI_API_BASE", "OPENAI_API_KEY", "ANTHROPIC_API_BASE", "ANTHROPIC_API_KEY")) {
            shell.environment().remove(variable);
        }
        return shell;
    }

    private static int bash(Path dir, String command) throws IOException, InterruptedException {
        ProcessBuilder shell = new ProcessBuilder("bash", "-c", command).directory(dir.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        withoutEndpoint(shell);
        Process p = shell.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), command);
        return p.exitValue();
    }

    private static String firstLine(String command) {
        return Arrays.stream(command.split("\n")).findFirst().orElse("").replace(" \\", " ...");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
