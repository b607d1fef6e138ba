package io.llmperf4j.run;

import io.llmperf4j.datasets.CorrectnessPrompts;
import io.llmperf4j.engine.client.NettyLlmClient;
import io.llmperf4j.engine.client.LlmApi;
import io.llmperf4j.engine.load.ClosedLoopResult;
import io.llmperf4j.engine.load.ClosedLoopSettings;
import io.llmperf4j.engine.load.LoadRunner;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;
import io.llmperf4j.report.correctness.CorrectnessReport;
import io.llmperf4j.report.correctness.CorrectnessResult;
import io.llmperf4j.report.correctness.CorrectnessResultFiles;
import io.llmperf4j.report.correctness.CorrectnessResultWriter;
import io.llmperf4j.report.correctness.CorrectnessSettings;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The correctness test, start to end: numbers and prompts, endpoint, closed loop, llmperf's printed lines and files.
 *
 * <p>Differences from llmperf's script, on purpose: the numbers come from a seeded generator; exactly
 * --max-num-completed-requests requests are sent, one per number, by a closed loop of
 * --num-concurrent-requests (llmperf sends in waves and can overshoot by N-1); at --timeout the requests in flight
 * are cancelled and reported as errors (llmperf drops them); no 2 s sleep before the result block.
 */
final class CorrectnessRun {
    /** Output tokens are not reported (the files carry SSE event counts, as llmperf's actor does): no tokenizer. */
    private static final TokenCounter NOT_COUNTED = text -> -1;

    private final CommonSettings options;
    private final long seed;
    private final PrintStream out;
    private final PrintStream err;

    CorrectnessRun(CommonSettings options, long seed, PrintStream out, PrintStream err) {
        this.options = options;
        this.seed = seed;
        this.out = out;
        this.err = err;
    }

    RunStatus run() {
        if (!CommonSettings.registered(options.llmApi()).generates()) {
            throw new InvalidRequestException("--llm-api " + options.llmApi() + " has no text to check; use it with "
                    + "token-benchmark");
        }
        StopControl stops = new StopControl(err, false);
        // from the start: a signal before the measurement (the pre-run check) ends the run with one line, the
        // results folder released and nothing of an earlier run removed
        stops.beforeMeasurement(() -> { });
        try (InterruptHandler ignored = InterruptHandler.installStaged(stops)) {
            List<CorrectnessPrompts.Item> items = CorrectnessPrompts.generate(seed, options.maxNumCompletedRequests());
            List<RequestSpec> specs = items.stream().map(CorrectnessPrompts.Item::toRequestSpec).toList();
            CorrectnessSettings settings = new CorrectnessSettings(options.model(), options.numConcurrentRequests(),
                    options.additionalSamplingParams(), options.llmApi(), options.metadata());
            try (ResultsFolder folder = ResultsFolder.lock(options.resultsDir(), options.overwrite(), err)) {
                stops.beforeMeasurement(folder::close); // the lock released, a folder created empty removed
                stops.atQuit(folder::quit); // a quit at once still leaves the folder losing nothing
                return run(items, specs, settings, stops, folder);
            }
        }
    }

    private RunStatus run(List<CorrectnessPrompts.Item> items, List<RequestSpec> specs, CorrectnessSettings settings,
                          StopControl stops, ResultsFolder folder) {
        ClosedLoopResult result;
        try (EndpointUnderTest endpoint = EndpointUnderTest.open(options.target(), null, err)) {
            LlmApi api = options.api(true, null);
            Preflight.awaitReachable(endpoint.uri(api), options.target(), err);
            // llmperf's correctness body: temperature 0.0 and the additional params, no max_tokens, no stream_options
            try (NettyLlmClient client = options.newClient(endpoint, api, settings.samplingParams(), false)) {
                // a LoadRunner's stop is kept: a signal just before the run starts still ends it at once
                LoadRunner runner = new LoadRunner(client, NOT_COUNTED);
                stops.measurementStarts(folder::replaceEarlier);
                stops.attach(runner::stop, runner::stop);
                stops.levelStarted();
                ProgressPrinter progress = new ProgressPrinter(err, specs.size());
                try {
                    result = (ClosedLoopResult) runner.run(specs, loopSettings(), progress);
                } finally {
                    stops.levelEnded();
                    stops.detach();
                }
                progress.finish(); // a timed-out run's last line has the cancelled requests too
            }
        }
        List<CorrectnessResult> results = new ArrayList<>(result.records().size());
        for (RequestRecord record : result.records()) {
            CorrectnessPrompts.Item item = items.get(record.promptIndex());
            results.add(new CorrectnessResult(record, item.number(), item.prompt()));
        }
        CorrectnessReport report = new CorrectnessReport(settings, results);
        if (result.timedOut()) {
            out.println("Test timed out before all requests could be completed.");
        }
        out.print(report.renderDetails());
        out.print(report.renderResults());
        out.flush();
        writeFiles(report, folder);
        if (stops.interrupted()) return RunStatus.INTERRUPTED;
        // --overwrite: a rerun that failed entirely gives the folder back to the run it was replacing; the exit
        // stays 0, as llmperf's: the report, errors counted, is the answer
        folder.keepEarlierIfEveryRequestFailed(result.records());
        return RunStatus.COMPLETED;
    }

    private ClosedLoopSettings loopSettings() {
        return new ClosedLoopSettings(options.numConcurrentRequests(), Duration.ofSeconds(options.timeoutSeconds()))
                .withMaxCompleted(options.maxNumCompletedRequests())
                .withPromptOrder(ClosedLoopSettings.PromptOrder.SEND_ORDER);
    }

    private void writeFiles(CorrectnessReport report, ResultsFolder folder) {
        if (options.resultsDir() == null) {
            return;
        }
        try {
            CorrectnessResultFiles files = CorrectnessResultWriter.write(report, options.resultsDir(),
                    System.currentTimeMillis() / 1000);
            folder.announceWritten(err, files.summaryJson().getParent(), files.summaryJson().getFileName() + ", "
                    + files.individualResponsesJson().getFileName());
        } catch (IOException e) {
            throw new RunFailedException("could not write results to " + options.resultsDir() + ": "
                    + ModelRun.why(e), e);
        }
    }
}
