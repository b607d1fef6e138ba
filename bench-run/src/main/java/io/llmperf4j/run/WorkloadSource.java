package io.llmperf4j.run;

import io.llmperf4j.report.summary.Plural;
import io.llmperf4j.datasets.Corpus;
import io.llmperf4j.datasets.DatasetFormatException;
import io.llmperf4j.datasets.DatasetSpec;
import io.llmperf4j.datasets.FixedPrompt;
import io.llmperf4j.datasets.IntDistribution;
import io.llmperf4j.datasets.SessionWorkloads;
import io.llmperf4j.datasets.trace.Trace;
import io.llmperf4j.datasets.trace.TracePrompts;
import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.datasets.Language;
import io.llmperf4j.datasets.PromptListDataset;
import io.llmperf4j.datasets.Scenario;
import io.llmperf4j.datasets.ShareGptDataset;
import io.llmperf4j.datasets.ShareGptOptions;
import io.llmperf4j.datasets.SharedPrefix;
import io.llmperf4j.datasets.SyntheticWorkload;
import io.llmperf4j.datasets.Workload;
import io.llmperf4j.datasets.images.ImageAttachment;
import io.llmperf4j.datasets.images.ImageLibrary;
import io.llmperf4j.datasets.images.ImageOptions;
import io.llmperf4j.datasets.images.ImageReferences;
import io.llmperf4j.datasets.manifest.ManifestHeader;
import io.llmperf4j.datasets.manifest.WorkloadManifest;
import io.llmperf4j.engine.load.LevelWorkloads;
import io.llmperf4j.engine.load.Warmup;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.tokenize.Tokenizer;
import io.llmperf4j.tokenize.TokenizerOptions;
import io.llmperf4j.tokenize.TokenizerUnavailableException;
import io.llmperf4j.tokenize.Tokenizers;
import io.llmperf4j.tokenize.prompt.LengthDistribution;
import io.llmperf4j.tokenize.prompt.PromptMode;
import io.llmperf4j.tokenize.prompt.PromptParams;

import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.LongFunction;

/**
 * Turns the workload flags into the run's requests, before anything is sent: one source (a replayed manifest, a
 * dataset, a fixed prompt, a scenario, or llmperf's synthetic prompts), an optional shared prefix, and the
 * tokenizers that count prompts and outputs.
 *
 * @param requests         the requests, indexed 0..n-1
 * @param promptTokenizer  the tokenizer that built and counted the prompts (a real one, even with --tokenizer server)
 * @param countFromUsage   output tokens come from the server's usage (--tokenizer server)
 * @param description      what counted what, for the results
 * @param promptMode       "llmperf", "exact", or the source kind when prompts are not synthesized
 * @param redraw           the same synthetic workload drawn from another seed; null when the workload is meant to
 *                         be sent again as it is (a dataset, manifest, fixed prompt, scenario, sessions, shared
 *                         prefixes, a trace)
 * @param replayed         each level's and fork's requests of a replayed manifest of levels ({@link LevelManifest});
 *                         null otherwise
 * @param sessionRedraw    synthetic sessions (--turns, not built to share prefixes) drawn from another seed, for a
 *                         level that starts more sessions than the workload holds ({@link FreshSessions}); null
 *                         otherwise (such a level plays the workload's sessions again)
 * @param inputTokensTokenizer the tokenizer that counted the requests' {@code number_input_tokens} when it is not the
 *                         run's: a replayed manifest's, counted by another tokenizer than {@code --tokenizer}
 *                         (the summary's {@code settings.input_tokens_tokenizer}); null otherwise
 * @param datasetReuse     the stderr line of a dataset that sends its prompts or conversations more than once
 *                         ({@link #datasetReused}), said by {@link #sayDatasetReuse} once the workload is accepted; null
 *                         otherwise
 */
record WorkloadSource(List<RequestSpec> requests, Tokenizer promptTokenizer, boolean countFromUsage,
                      String description, String promptMode, LongFunction<List<RequestSpec>> redraw,
                      LevelWorkloads replayed, LongFunction<PacedWorkload> sessionRedraw,
                      String inputTokensTokenizer, String datasetReuse) {

    WorkloadSource(List<RequestSpec> requests, Tokenizer promptTokenizer, boolean countFromUsage, String description,
                   String promptMode, LongFunction<List<RequestSpec>> redraw, LevelWorkloads replayed,
                   LongFunction<PacedWorkload> sessionRedraw, String inputTokensTokenizer) {
        this(requests, promptTokenizer, countFromUsage, description, promptMode, redraw, replayed, sessionRedraw,
                inputTokensTokenizer, null);
    }

    WorkloadSource(List<RequestSpec> requests, Tokenizer promptTokenizer, boolean countFromUsage, String description,
                   String promptMode, LongFunction<List<RequestSpec>> redraw, LevelWorkloads replayed,
                   LongFunction<PacedWorkload> sessionRedraw) {
        this(requests, promptTokenizer, countFromUsage, description, promptMode, redraw, replayed, sessionRedraw,
                null);
    }

    WorkloadSource(List<RequestSpec> requests, Tokenizer promptTokenizer, boolean countFromUsage, String description,
                   String promptMode, LongFunction<List<RequestSpec>> redraw, LevelWorkloads replayed) {
        this(requests, promptTokenizer, countFromUsage, description, promptMode, redraw, replayed, null);
    }

    WorkloadSource(List<RequestSpec> requests, Tokenizer promptTokenizer, boolean countFromUsage, String description,
                   String promptMode, LongFunction<List<RequestSpec>> redraw) {
        this(requests, promptTokenizer, countFromUsage, description, promptMode, redraw, null, null);
    }

    WorkloadSource(List<RequestSpec> requests, Tokenizer promptTokenizer, boolean countFromUsage, String description,
                   String promptMode) {
        this(requests, promptTokenizer, countFromUsage, description, promptMode, null, null, null);
    }

    /**
     * The levels a run sends, as far as its workload cares: their names, its harness forks, and whether a capacity
     * search chooses them as it goes (then only the first is known).
     */
    record Levels(List<String> names, int forks, boolean search) {
        /** One level: a plain run, an embeddings run. */
        static final Levels ONE = new Levels(List.of("the run"), 1, false);

        Levels {
            names = List.copyOf(names);
        }

        static Levels of(LoadPlan plan, boolean search) {
            List<String> names = plan.profile().levels(Warmup.NONE).stream().map(LoadPlan::label).toList();
            return new Levels(names, plan.harness() == null ? 1 : plan.harness().forks(), search);
        }

        /** The draws of the run: one per level and fork (a search's first level only). */
        int draws() {
            return search ? 1 : names.size() * forks;
        }
    }

    /**
     * A level that starts more sessions than the workload holds draws fresh ones ({@link #sessionRedraw}): synthetic
     * sessions, not built to share prefixes.
     */
    boolean drawsFreshSessions() {
        return sessionRedraw != null && requests instanceof PacedWorkload;
    }

    /** Each level and fork gets prompts of its own ({@link #draw}): synthetic prompts, not built to share. */
    boolean drawsFresh() {
        return redraw != null;
    }

    /**
     * The tokens every prompt starts with by design, for prompts drawn fresh ({@link #drawsFresh}): llmperf's
     * instruction ("Randomly stream lines from the following text with N output tokens. ..."; up to its number when
     * N varies), which a server's prefix cache serves to every request after the first. The longest prefix all the
     * first draw's prompts share (with another draw's when it holds one prompt only), counted with
     * {@link #promptTokenizer}; 0 for other workloads.
     */
    int sharedPrefixTokens() {
        if (redraw == null) return 0;
        List<RequestSpec> prompts = new ArrayList<>(requests);
        if (prompts.size() < 2) prompts.addAll(redraw.apply(mix(requests.size())));
        String first = prompts.get(0).prompt();
        int common = first.length();
        for (RequestSpec spec : prompts) {
            String prompt = spec.prompt();
            int n = Math.min(common, prompt.length());
            int i = 0;
            while (i < n && prompt.charAt(i) == first.charAt(i)) i++;
            common = i;
        }
        return common == 0 ? 0 : promptTokenizer.count(first.substring(0, common));
    }

    /**
     * The requests of level {@code level}, fork {@code fork} (both 0-based): {@link #requests} for the first; for
     * the others, with synthetic prompts, the same workload drawn from {@link #drawSeed}, so that no level resends
     * another's prompts (the server's prefix cache would serve them); other workloads are the same requests every
     * time. Every model of a comparison gets the same draws: a fair comparison, and each model has a cache of its own.
     */
    List<RequestSpec> draw(long seed, int level, int fork) {
        if (replayed != null) return replayed.forLevel(level, fork);
        if (redraw == null || (level == 0 && fork == 0)) return requests;
        return redraw.apply(drawSeed(seed, level, fork));
    }

    /**
     * The seed of a draw: {@code seed} itself for the first level (a plain run sends llmperf's prompts of --seed),
     * else a mix of {@code seed} and the two indexes, so a rerun with the same --seed sends the same prompts at each
     * level again.
     */
    static long drawSeed(long seed, int level, int fork) {
        if (level == 0 && fork == 0) return seed;
        long h = mix(seed);
        h = mix(h ^ (level + 1L) * 0x9E3779B97F4A7C15L);
        return mix(h ^ (fork + 1L) * 0xC2B2AE3D27D4EB4FL);
    }

    /** SplitMix64's finalizer. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static WorkloadSource resolve(WorkloadSpec f, int count, Map<String, Object> samplingParams, PrintStream err) {
        return resolve(f, count, samplingParams, Levels.ONE, err);
    }

    /**
     * The workload of a run of {@code levels}: with {@code --save-workload}, synthetic prompts drawn per level are
     * written level by level ({@link LevelManifest}), and a replayed manifest of levels gives each level its own.
     */
    static WorkloadSource resolve(WorkloadSpec f, int count, Map<String, Object> samplingParams, Levels levels,
                                  PrintStream err) {
        int meanIn = f.meanInputTokens();
        int sdIn = f.stddevInputTokens();
        int meanOut = f.meanOutputTokens();
        int sdOut = f.stddevOutputTokens();
        checkExclusive(f);
        boolean fromUsage = f.tokenizer().equals("server");
        Tokenizer tokenizer = tokenizer(fromUsage ? "llama-2" : f.tokenizer(), f.allowDownload());
        Workload workload;
        String mode;
        ImageLibrary images = new ImageLibrary(); // one copy of each distinct image, shared by the requests
        SessionSpec sx = f.sessions();
        LongFunction<List<RequestSpec>> redraw = null; // synthetic prompts not built to share: drawn per level
        LongFunction<PacedWorkload> sessionRedraw = null; // synthetic sessions, likewise, for a level that sends more
        String reuse = null; // a dataset's prompts sent more than once: said once the run has accepted the workload
        try {
            if (sx.trace() != null) {
                return trace(f, tokenizer, fromUsage, samplingParams, err);
            } else if (f.workload() != null) {
                return replay(f, count, tokenizer, fromUsage, levels, err);
            } else if (f.dataset() != null) {
                workload = dataset(f, tokenizer, count, images);
                mode = workload.kind();
                reuse = datasetReused(f.dataset(), workload).orElse(null);
            } else if (f.prompt() != null) {
                if (f.maxTokens() == null || f.maxTokens() < 1) {
                    throw new InvalidRequestException("--prompt needs --max-tokens N (N >= 1)");
                }
                workload = FixedPrompt.workload(f.prompt(), f.maxTokens(), count, tokenizer);
                mode = Workload.FIXED;
            } else if (f.scenario() != null) {
                workload = scenario(f).workload(language(f), count, tokenizer);
                mode = Workload.SCENARIO;
            } else {
                mode = promptMode(f.promptMode());
                Corpus corpus = f.corpus() == null ? Corpus.defaultCorpus() : Corpus.fromFile(f.corpus());
                PromptParams params = new PromptParams(meanIn, sdIn, meanOut, sdOut, count,
                        mode.equals("exact") ? PromptMode.EXACT : PromptMode.LLMPERF, f.seed());
                params = params.withInputLengths(distribution("--input-lengths", f.inputLengths(), params.inputLengths()))
                        .withOutputLengths(distribution("--output-lengths", f.outputLengths(), params.outputLengths()));
                SyntheticWorkload synthetic = new SyntheticWorkload(tokenizer, corpus);
                workload = synthetic.generate(params);
                if (sx.turns() == null && sx.sharedPrefixGroups() == null && f.prefixTokens() == null) {
                    PromptParams drawn = params;
                    redraw = seed -> {
                        Workload w = synthetic.generate(drawn.withSeed(seed));
                        return (f.images() == null ? w : ImageAttachment.attach(w, f.images(), images)).requests();
                    };
                } else if (sx.turns() != null && sx.sharedPrefixGroups() == null && f.prefixTokens() == null) {
                    PromptParams drawn = params;
                    IntDistribution turns = turns(sx.turns());
                    // the turns' think times are the run's (--seed): drawn per session id, so each session its own
                    sessionRedraw = seed -> {
                        Workload w = SessionWorkloads.group(synthetic.generate(drawn.withSeed(seed)), turns, seed);
                        if (f.images() != null) w = ImageAttachment.attach(w, f.images(), images);
                        return (PacedWorkload) paced(w.requests(), sx, f.seed());
                    };
                }
            }
            if (sx.turns() != null && !isShareGpt(f)) {
                workload = SessionWorkloads.group(workload, turns(sx.turns()), f.seed());
            }
            if (sx.sharedPrefixGroups() != null) {
                if (f.prefixTokens() == null) {
                    throw new InvalidRequestException("--shared-prefix-groups needs --prefix-tokens P (the length of "
                            + "each group's system prompt)");
                }
                workload = SessionWorkloads.withSystemPrompts(workload, tokenizer, sx.sharedPrefixGroups(),
                        f.prefixTokens(), f.seed());
            } else if (f.prefixTokens() != null) {
                workload = SharedPrefix.prepend(workload, tokenizer, f.prefixTokens());
            }
            if (f.images() != null) {
                workload = ImageAttachment.attach(workload, f.images(), images);
            }
        } catch (DatasetFormatException | IllegalArgumentException | UncheckedIOException e) {
            throw new InvalidRequestException(e.getMessage());
        }
        WorkloadSource source = new WorkloadSource(paced(workload.requests(), sx, f.seed()), tokenizer, fromUsage,
                describe(tokenizer, fromUsage), mode, redraw, null, sessionRedraw, null, reuse);
        if (f.saveWorkload() != null && source.drawsFresh() && levels.draws() > 1) {
            source.saveLevels(f.saveWorkload(), workload.manifestHeader(samplingParams), levels, f.seed(), err);
        } else if (f.saveWorkload() != null) {
            // the same requests at every level: one list replays them all
            WorkloadManifest.write(f.saveWorkload(), workload.requests(), workload.manifestHeader(samplingParams));
            err.println("Workload written to " + f.saveWorkload().toAbsolutePath() + " (" + workload.requests().size()
                    + " requests" + (levels.search() && source.drawsFresh() ? ", the first level's: the search's "
                    + "other levels draw their own" : "") + (levels.search() && source.drawsFreshSessions()
                    ? ", the first level's sessions: a level that sends more than them (the search's levels limited "
                    + "by time or by more requests) draws sessions of its own from --seed, which are not in the file "
                    + "(a replay starts these again, s0~1, ...)" : "") + "; replay with --workload)");
        }
        return source;
    }

    /** Every level's (and fork's) own draw, one after another in run order, as {@link #draw} gives them. */
    private void saveLevels(Path file, ManifestHeader header, Levels levels, long seed, PrintStream err) {
        List<LevelManifest.Draw> draws = new ArrayList<>();
        for (int level = 0; level < levels.names().size(); level++) {
            for (int fork = 0; fork < levels.forks(); fork++) {
                draws.add(new LevelManifest.Draw(levels.names().get(level), level, fork, drawSeed(seed, level, fork),
                        draw(seed, level, fork)));
            }
        }
        LevelManifest.write(file, header, draws);
        err.println("Workload written to " + file.toAbsolutePath() + " (" + levels.names().size() + " levels"
                + (levels.forks() > 1 ? " x " + levels.forks() + " forks" : "") + " x " + requests.size()
                + " requests, each level's own prompts in run order; replay them level by level with --workload)");
    }

    /**
     * Requests of multi-turn sessions become a {@link PacedWorkload} (turns sent one after another with their
     * history, after a think time drawn per session and turn from --think-time and the seed); others stay as they are.
     */
    static List<RequestSpec> paced(List<RequestSpec> requests, SessionSpec sx, long seed) {
        boolean sessions = requests.stream().anyMatch(r -> r.inputs().sessionId() != null);
        if (!sessions) {
            if (sx.thinkTime() != null) throw new InvalidRequestException("--think-time applies to sessions (--turns)");
            return requests;
        }
        IntDistribution think;
        try {
            think = sx.thinkTime() == null ? IntDistribution.fixed(0) : IntDistribution.parse(sx.thinkTime());
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("--think-time " + e.getMessage());
        }
        return PacedWorkload.sessions(requests, turn -> think.sample(new SplittableRandom(
                seed * 31 + turn.inputs().sessionId().hashCode() * 1_000_003L + turn.inputs().turn())) * 1_000_000L);
    }

    /**
     * A session has at least one turn: a fixed or uniform form that allows none is refused (it would run one-turn
     * sessions unasked); a normal draw under 1 counts as 1, as docs/sessions-and-traces.md says.
     */
    private static IntDistribution turns(String text) {
        IntDistribution turns;
        try {
            turns = IntDistribution.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("--turns " + e.getMessage());
        }
        long fewest = turns.kind().equals("normal") ? turns.max() : turns.min();
        if (fewest < 1) {
            throw new InvalidRequestException("--turns '" + text + "': a session has at least 1 turn");
        }
        return turns;
    }

    private static boolean isShareGpt(WorkloadSpec f) {
        return f.dataset() != null && DatasetSpec.parse(f.dataset()).kind().equals(Workload.SHAREGPT);
    }

    /** A replayed trace: prompts synthesized from its lengths and hash ids, sent at its (scaled) timestamps. */
    private static WorkloadSource trace(WorkloadSpec f, Tokenizer tokenizer, boolean fromUsage,
                                        Map<String, Object> samplingParams, PrintStream err) {
        SessionSpec sx = f.sessions();
        if (f.workload() != null || f.dataset() != null || f.prompt() != null || f.scenario() != null
                || sx.turns() != null || sx.sharedPrefixGroups() != null || f.prefixTokens() != null) {
            throw new InvalidRequestException("--trace is the whole workload: it goes without --workload, --dataset, "
                    + "--prompt, --scenario, --turns, --shared-prefix-groups and --prefix-tokens");
        }
        Trace trace = sx.loadedTrace() != null ? sx.loadedTrace()
                : Trace.load(sx.trace()).scaled(sx.traceSpeedup(), sx.traceStart(), sx.traceDuration());
        TracePrompts.Replay replay = TracePrompts.synthesize(trace, tokenizer, f.seed());
        if (f.saveWorkload() != null) {
            WorkloadManifest.write(f.saveWorkload(), replay.workload().requests(),
                    replay.workload().manifestHeader(samplingParams));
            err.println("Workload written to " + f.saveWorkload().toAbsolutePath() + " ("
                    + replay.workload().requests().size() + " requests; the trace's timestamps are not in it)");
        }
        long[] think = replay.thinkNanos();
        List<RequestSpec> paced = PacedWorkload.trace(replay.workload().requests(), replay.sessionStartsNanos(),
                turn -> think[turn.index()]);
        return new WorkloadSource(paced, tokenizer, fromUsage, describe(tokenizer, fromUsage),
                "trace:" + trace.format());
    }

    /**
     * A replayed manifest: its requests, each once, in order; the first {@code count} when it holds more (the command
     * line caps the run's count at the manifest's, so its requests are never sent twice).
     */
    private static WorkloadSource replay(WorkloadSpec f, int count, Tokenizer tokenizer, boolean fromUsage,
                                         Levels levels, PrintStream err) {
        if (!Files.isRegularFile(f.workload())) {
            throw new InvalidRequestException("--workload " + f.workload() + " is not a readable file");
        }
        WorkloadManifest manifest = WorkloadManifest.read(f.workload());
        boolean otherCounts = !Objects.equals(manifest.header().tokenizer(), tokenizer.id());
        if (otherCounts) {
            err.println("note: the manifest's token counts are by " + manifest.header().tokenizer()
                    + "; this run counts outputs with " + describe(tokenizer, fromUsage));
        }
        List<LevelManifest.Entry> entries = LevelManifest.entries(manifest.header(), f.workload());
        LevelWorkloads byLevel = entries.isEmpty() ? null : byLevel(f.workload(), manifest, entries, count, levels,
                err);
        List<RequestSpec> requests = byLevel != null ? byLevel.forLevel(0, 0) : manifest.requests();
        if (count < requests.size()) requests = requests.subList(0, count);
        return new WorkloadSource(paced(requests, f.sessions(), f.seed()), tokenizer, fromUsage,
                describe(tokenizer, fromUsage),
                "replay:" + manifest.header().kind(), null, byLevel, null,
                otherCounts ? manifest.header().tokenizer() : null);
    }

    /**
     * A manifest of levels replayed: the run's level i, fork f sends the manifest's draw (i, f), its first
     * {@code count}. A run of more levels or forks than the manifest holds, or a search (whose levels are its own
     * choice), is refused: no level would send what was saved for it.
     */
    private static LevelWorkloads byLevel(Path file, WorkloadManifest manifest, List<LevelManifest.Entry> entries,
                                          int count, Levels levels, PrintStream err) {
        String held = String.join(", ", entries.stream().filter(e -> e.fork() == 0)
                .map(LevelManifest.Entry::level).toList());
        int forks = (int) entries.stream().filter(e -> e.levelIndex() == 0).count();
        if (levels.search()) {
            throw new InvalidRequestException("--workload " + file + " holds each level's requests of a sweep ("
                    + held + "); --search chooses its own levels: replay it with the sweep's levels, or save a plain "
                    + "run's workload for the search");
        }
        Map<Long, List<RequestSpec>> draws = new HashMap<>();
        for (LevelManifest.Entry e : entries) {
            List<RequestSpec> slice = LevelManifest.slice(manifest.requests(), e, file);
            draws.put(key(e.levelIndex(), e.fork()), count < slice.size() ? slice.subList(0, count) : slice);
        }
        for (int level = 0; level < levels.names().size(); level++) {
            for (int fork = 0; fork < levels.forks(); fork++) {
                if (!draws.containsKey(key(level, fork))) {
                    throw new InvalidRequestException("--workload " + file + " holds the requests of "
                            + Plural.of(entries.size() / Math.max(1, forks), "level") + " (" + held + ")"
                            + (forks > 1 ? " x " + Plural.of(forks, "fork") : "") + ", level by level; this run has "
                            + Plural.of(levels.names().size(), "level")
                            + (levels.forks() > 1 ? " x " + Plural.of(levels.forks(), "fork") : "")
                            + ": replay it with at most as many");
                }
            }
        }
        err.println("llmperf4j: replaying " + file + " level by level: each level sends the requests saved for its "
                + "place in the sweep (" + held + ")" + (levels.names().size() < draws.size() / Math.max(1, forks)
                ? "; this run has " + Plural.of(levels.names().size(), "level") + ", the first" : ""));
        return (level, fork) -> draws.get(key(level, fork));
    }

    private static long key(int level, int fork) {
        return ((long) level << 32) | fork;
    }

    /** Whether any request of the workload carries an image. */
    private boolean carriesImages() {
        return requests.stream().anyMatch(r -> r.inputs().hasImages());
    }

    /**
     * Refuses --image-detail on a workload that carries no image (no --images-per-request, --image-dir, or dataset
     * or replay with images): the detail would be sent nowhere, yet the summaries would record it.
     */
    void checkImageDetailHasImages(String detail) {
        if (detail != null && !carriesImages()) {
            throw new InvalidRequestException("--image-detail sets the detail of images, and this workload has none: "
                    + "give --images-per-request or --image-dir too (or a dataset whose lines have \"images\")");
        }
    }

    /**
     * Refuses images where they cannot go, before anything is sent: the completions and embeddings APIs carry no
     * images, and load workers are sent text requests only.
     */
    void checkImagesFit(String llmApi, boolean cluster, PrintStream err) {
        checkImagesFit(llmApi, cluster, 1, err);
    }

    /** As above, and the bodies of {@code inFlight} requests at once must fit the heap beside the images. */
    void checkImagesFit(String llmApi, boolean cluster, int inFlight, PrintStream err) {
        if (!carriesImages()) return;
        if (!llmApi.equals("openai") && !llmApi.equals("anthropic")) {
            throw new InvalidRequestException("--llm-api " + llmApi + " cannot send images: use --llm-api openai "
                    + "(chat completions) or anthropic");
        }
        if (cluster) throw new InvalidRequestException("images are not sent through --cluster workers yet");
        try {
            // no more bodies at once than the workload's requests (an uncapped open loop's connection cap is large)
            ImageAttachment.checkBodies(requests, Math.min(inFlight, requests.size()), err);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(e.getMessage());
        }
        err.println("llmperf4j: " + ImageAttachment.describe(requests));
    }

    /**
     * The stderr line of a ShareGPT {@code --turns all} workload that plays its conversations more than once (fewer
     * user turns fit than the run's requests), as a level that sends more than its workload holds says it: the
     * later passes' prompts are the first's, so the server's prefix cache can serve them.
     */
    static Optional<String> conversationsReplayed(String dataset, Workload workload) {
        if (!workload.generation().containsKey("conversations")
                || !(workload.generation().get("passes") instanceof Integer passes)) {
            return Optional.empty();
        }
        int conversations = (Integer) workload.generation().get("conversations");
        int turns = (Integer) workload.generation().get("conversation_turns");
        int count = workload.requests().size();
        String first = workload.requests().get(0).inputs().sessionId();
        return Optional.of("llmperf4j: --dataset " + dataset + ": its " + Plural.of(conversations,
                "conversation") + " that fit (" + Plural.of(turns, "user turn") + ") are replayed for the "
                + Plural.of(count, "request") + ": played " + passes + " times" + (count % turns == 0 ? ""
                : ", the last pass cut short") + ", each pass after the first as new sessions (" + first
                + "~1, ...); from the second pass on, the server's prefix cache can serve every prompt again and TTFT "
                + "times a cached prefill (a larger dataset, or --max-num-completed-requests " + turns
                + " or fewer, plays each once)");
    }

    /**
     * Says on {@code err} that the dataset's prompts or conversations are sent more than once, if they are: called
     * once the run has accepted the workload, so a refused one (images the API cannot carry) gets its one line.
     */
    void sayDatasetReuse(PrintStream err) {
        if (datasetReuse != null) err.println(datasetReuse);
    }

    /** The stderr line of a dataset that sends its conversations, or its prompts, more than once; else empty. */
    static Optional<String> datasetReused(String dataset, Workload workload) {
        return conversationsReplayed(dataset, workload).or(() -> promptsReused(dataset, workload));
    }

    /**
     * The stderr line of a dataset of single prompts (ShareGPT without {@code --turns}, a prompts file) that sends its
     * prompts more than once (fewer fit than the run's requests), as {@link #conversationsReplayed} says it of
     * conversations: the later passes' prompts are the first's, so the server's prefix cache can serve them.
     */
    static Optional<String> promptsReused(String dataset, Workload workload) {
        if (workload.generation().containsKey("conversations")
                || !(workload.generation().get("passes") instanceof Integer passes)) {
            return Optional.empty();
        }
        int prompts = (Integer) workload.generation().get("distinct_prompts");
        int count = workload.requests().size();
        String fit = workload.kind().equals(Workload.SHAREGPT) ? " that fit" : "";
        return Optional.of("llmperf4j: --dataset " + dataset + ": its " + Plural.of(prompts, "prompt") + fit
                + (prompts == 1 ? " is" : " are") + " reused for the " + Plural.of(count, "request") + ": sent "
                + passes + " times"
                + (count % prompts == 0 ? "" : ", the last pass cut short") + ", in the same order; from the second "
                + "pass on, the server's prefix cache can serve every prompt again and TTFT times a cached prefill (a "
                + "larger dataset, or --max-num-completed-requests " + prompts + " or fewer, sends each once)");
    }

    private static Workload dataset(WorkloadSpec f, Tokenizer tokenizer, int count, ImageLibrary images) {
        DatasetSpec spec = DatasetSpec.parse(f.dataset());
        if (!Files.isRegularFile(spec.file())) {
            throw new InvalidRequestException("--dataset file " + spec.file() + " is not a readable file");
        }
        if (spec.kind().equals(Workload.SHAREGPT)) {
            ShareGptOptions options = ShareGptOptions.defaults();
            int[] prompt = range("--dataset-prompt-tokens", f.datasetPromptTokens());
            int[] output = range("--dataset-output-tokens", f.datasetOutputTokens());
            if (prompt != null) options = options.withPromptTokens(prompt[0], prompt[1]);
            if (output != null) options = options.withOutputTokens(output[0], output[1]);
            ShareGptDataset dataset = ShareGptDataset.load(spec.file());
            return f.sessions().turns() != null ? dataset.sessions(tokenizer, count, f.seed(), options)
                    : dataset.sample(tokenizer, count, f.seed(), options);
        }
        LengthDistribution outputs = f.outputLengths() == null ? null : LengthDistribution.parse(f.outputLengths());
        ImageOptions sending = f.images();
        ImageReferences references = new ImageReferences(spec.file().toAbsolutePath().getParent(), images,
                sending != null && sending.urlMode(), sending == null ? null : sending.baseUrl());
        return PromptListDataset.load(spec.file()).workload(tokenizer, count, f.seed(), outputs, references);
    }

    private static void checkExclusive(WorkloadSpec f) {
        int sources = (f.workload() != null ? 1 : 0) + (f.dataset() != null ? 1 : 0) + (f.prompt() != null ? 1 : 0)
                + (f.scenario() != null ? 1 : 0);
        if (sources > 1) {
            throw new InvalidRequestException("choose one workload source: --workload, --dataset, --prompt or --scenario");
        }
        if (f.maxTokens() != null && f.prompt() == null) {
            throw new InvalidRequestException("--max-tokens goes with --prompt (other workloads draw max_tokens)");
        }
    }

    static Tokenizer tokenizer(String spec, boolean allowDownload) {
        // a local path that is not there is the user's input (exit 2), not a failure of the run
        boolean localPath = spec.startsWith("/") || spec.startsWith("./") || spec.startsWith("../")
                || spec.endsWith(".json");
        if (localPath && !java.nio.file.Files.exists(java.nio.file.Path.of(spec))) {
            throw new InvalidRequestException("--tokenizer: " + spec + " does not exist (give a tokenizer.json, a "
                    + "folder holding one, a HuggingFace id or llama-2)");
        }
        try {
            return Tokenizers.resolve(spec, TokenizerOptions.defaults().withAllowDownload(allowDownload));
        } catch (TokenizerUnavailableException e) {
            // not in the local cache and no download allowed: the flag names what is not here (exit 2); a download
            // that failed is the run's failure (exit 1)
            if (!allowDownload) throw new InvalidRequestException(e.getMessage());
            throw new RunFailedException(e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("--tokenizer: " + e.getMessage());
        }
    }

    private static String describe(Tokenizer tokenizer, boolean fromUsage) {
        return fromUsage ? "prompts: " + tokenizer.id() + "; outputs: server usage" : tokenizer.id();
    }

    private static String promptMode(String mode) {
        if (!mode.equals("llmperf") && !mode.equals("exact")) {
            throw new InvalidRequestException("--prompt-mode must be 'llmperf' or 'exact' (got '" + mode + "')");
        }
        return mode;
    }

    private static Scenario scenario(WorkloadSpec f) {
        try {
            return Scenario.parse(f.scenario());
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("--scenario: " + e.getMessage());
        }
    }

    private static Language language(WorkloadSpec f) {
        try {
            return Language.parse(f.scenarioLang());
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("--scenario-lang: " + e.getMessage());
        }
    }

    private static LengthDistribution distribution(String option, String text, LengthDistribution fallback) {
        if (text == null) {
            return fallback;
        }
        try {
            return LengthDistribution.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(option + ": " + e.getMessage());
        }
    }

    private static int[] range(String option, String text) {
        if (text == null) {
            return null;
        }
        String[] parts = text.split(",", -1);
        try {
            if (parts.length == 2) {
                return new int[] {Integer.parseInt(parts[0].strip()), Integer.parseInt(parts[1].strip())};
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new InvalidRequestException(option + " must be MIN,MAX (got '" + text + "')");
    }
}
