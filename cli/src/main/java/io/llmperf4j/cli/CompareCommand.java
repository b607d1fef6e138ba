package io.llmperf4j.cli;

import io.llmperf4j.report.compare.BootstrapConfig;
import io.llmperf4j.report.compare.FailIfRule;
import io.llmperf4j.report.compare.FolderComparison;
import io.llmperf4j.report.compare.FolderComparisonConsoleReport;
import io.llmperf4j.report.compare.RuleResult;
import io.llmperf4j.report.compare.SettingsDifferences;
import io.llmperf4j.report.compare.StoppedRuns;
import io.llmperf4j.report.metrics.TokenCounting;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code llmperf4j compare A B}: per-metric deltas of B against A with bootstrap CIs, and CI regression alarms. */
@Command(name = "compare",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "",
        header = "Compares two runs, with confidence intervals and CI thresholds.",
        description = {
            "Compares two runs (results folders, or their *_requests.csv or requests.jsonl files): p50/p90/p99",
            "of TTFT, TPOT, ITL per event and per token (from requests.jsonl), E2E and per-request tok/s, run",
            "throughput and error rate, each delta with a 95 %% bootstrap confidence interval. Open loops and",
            "sessions add send lag and TTFT/E2E from the intended send (send_lag, ttft_from_intended,",
            "e2e_from_intended); ttft_* and e2e_* rules judge from the intended send when both sides have lags.",
            "With --fail-if, exits 3 when a rule is crossed or cannot be evaluated, or a side did not run to its",
            "end (below): the guides' regression alarm for CI; an empty rule list is refused. Throughput and",
            "error rate are one value per run, with no interval.",
            "Two sweep folders are compared level by level (matched by concurrency or rate), two comparisons of",
            "models by model and level, two iteration folders (or two sweeps run with --iterations) by level; the",
            "rules of --fail-if then apply to every level. Settings that differ between the two (model, endpoint,",
            "load, token shape, tokenizer, prompt mode, sampling parameters, streaming, connection mode, warmup;",
            "for iterations model, load, token shape and iterations) are listed on stderr first, and so is a side",
            "that did not run to its end: stopped by a signal or with no summary at all (its records alone: a",
            "killed run; its settings cannot be checked); a side that ended at its --timeout before its planned",
            "requests, and a side whose client was its own bottleneck, are said too. With --fail-if, a side that",
            "did not run to its end fails the gate (exit 3) as a rule that cannot be evaluated does, unless",
            "--allow-incomplete.",
            "The CI comes from resampling requests within each run: run-to-run variation is not in it (two runs",
            "of an unchanged server mark far more than 5 %% of rows), so repeat runs (--iterations/--forks) to",
            "judge a change. Iterations compare TTFT and TPOT mean, output",
            "and request throughput (each the mean over measured iterations, with Welch's t interval at the",
            "harness's 99.9 %%; none below 3 iterations a side) and the error rate."
        })
final class CompareCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    DebugOption debugOption;

    @Parameters(index = "0", paramLabel = "BASELINE",
            description = "Results folder (or CSV, or requests.jsonl) of the baseline run.")
    Path baseline;

    @Parameters(index = "1", paramLabel = "CANDIDATE",
            description = "Results folder (or CSV, or requests.jsonl) of the new run.")
    Path candidate;

    @Option(names = "--fail-if", paramLabel = "RULES",
            description = "Comma-separated rules on B vs A, e.g. "
                    + "'ttft_p90>+10%%,itl_p90>+10%%,output_throughput<-5%%'. A rule that cannot be evaluated "
                    + "(no value on a side) fails the gate too.")
    String failIf;

    @Option(names = "--allow-incomplete",
            description = "With --fail-if, judge a side that did not run to its end (stopped by a signal, or records "
                    + "without a summary) by the rules alone; without it such a side "
                    + "fails the gate (exit 3).")
    boolean allowIncomplete;

    @Option(names = "--client-special-tokens", paramLabel = "N", defaultValue = "1",
            description = "Special tokens the client tokenizer adds per text (1 for Llama-2's BOS), subtracted "
                    + "when server usage is missing.")
    int clientSpecialTokens;

    CompareCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        List<FailIfRule> rules;
        try {
            rules = failIf == null ? List.of() : FailIfRule.parseAll(failIf);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--fail-if: " + e.getMessage());
        }
        TokenCounting counting = new TokenCounting(clientSpecialTokens, true);
        FolderComparison comparison = compare(counting);
        List<RuleResult> results = comparison.evaluate(rules);
        List<String> differences = SettingsDifferences.between(baseline, candidate);
        if (!differences.isEmpty()) {
            context.err().println("compare: the two ran with different settings; a delta may come from these, "
                    + "not from the server alone:");
            for (String line : differences) context.err().println("  " + line);
        }
        SettingsDifferences.unrecorded(baseline, candidate)
                .ifPresent(note -> context.err().println("compare: " + note));
        List<StoppedRuns.Note> notes = StoppedRuns.notes(baseline, candidate);
        boolean gate = !rules.isEmpty();
        for (StoppedRuns.Note note : notes) {
            String consequence = !note.incomplete() || !gate ? ""
                    : allowIncomplete ? " (judged by the rules anyway: --allow-incomplete)"
                    : "; it fails the gate (exit 3) whatever the rules say: --allow-incomplete judges it by the rules";
            context.err().println("compare: " + note.text() + consequence);
        }
        context.err().flush();
        context.out().print(FolderComparisonConsoleReport.render(comparison, results));
        long incomplete = notes.stream().filter(StoppedRuns.Note::incomplete).count();
        boolean refused = gate && incomplete > 0 && !allowIncomplete;
        if (refused) {
            context.out().println("GATE FAILED: " + incomplete + (incomplete == 1 ? " side" : " sides")
                    + " did not run to its end or cannot show it did (stderr says which): a gate never passes on a "
                    + "run cut short, so this fails it (exit 3) as a crossed rule does; compare complete runs, or "
                    + "give --allow-incomplete to judge it by the rules alone");
        }
        context.out().flush();
        return refused || results.stream().anyMatch(RuleResult::failed) ? ExitCodes.THRESHOLD_FAILED : ExitCodes.OK;
    }

    /** Two runs, two sweeps (level by level), two sets of iterations or two comparisons of models. */
    private FolderComparison compare(TokenCounting counting) {
        for (Path path : List.of(baseline, candidate)) {
            if (!Files.exists(path)) {
                throw new UsageException(path + " does not exist (give a results folder, a *_requests.csv or a "
                        + "requests.jsonl file)");
            }
        }
        try {
            return FolderComparison.compare(baseline, candidate, counting, BootstrapConfig.DEFAULT);
        } catch (IOException | IllegalArgumentException e) {
            throw new UsageException("cannot compare " + baseline + " with " + candidate + ": " + e.getMessage());
        }
    }
}
