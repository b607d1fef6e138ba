package io.llmperf4j.cli;

import io.llmperf4j.run.Doctor;
import io.llmperf4j.run.DoctorCheck;
import io.llmperf4j.run.EndpointAccess;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code llmperf4j doctor}: the user guides' troubleshooting order, as checks with a fix for each failure. */
@Command(name = "doctor",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        headerHeading = "",
        header = "Checks an endpoint step by step and says how to fix what fails.",
        description = {
            "Checks that OPENAI_API_BASE / OPENAI_API_KEY point at a working OpenAI-compatible endpoint, in the",
            "troubleshooting order of the user guides: URL shape, reachability, key, model id, one streamed request",
            "(OpenAI SSE: data: lines, choices, [DONE]), usage in the stream, TLS. Each check prints PASS or FAIL",
            "with the fix; what a run can do without (usage in the stream) is a warning with what it means.",
            "Exit code 0 only when no check fails.",
            "",
            "With --llm-api the endpoint of that API is checked instead: openai-completions (/completions),",
            "anthropic (ANTHROPIC_API_BASE / ANTHROPIC_API_KEY, /messages with x-api-key and anthropic-version,",
            "Anthropic's events ending with message_stop) or embeddings (/embeddings, one JSON response).",
            "",
            "The connection flags are token-benchmark's: pass the run's, so doctor reaches the endpoint as the",
            "run will. Each answer is awaited as long as the run's pre-run check waits: the least of the idle",
            "and request timeouts and the connect timeout + 30 s (60 s by default)."
        })
final class DoctorCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    DebugOption debugOption;

    @Option(names = "--model", paramLabel = "MODEL",
            description = "The model id to check; default: the first one /models lists.")
    String model;

    @Option(names = "--llm-api", defaultValue = "openai", paramLabel = "API",
            completionCandidates = CompletionValues.LlmApis.class,
            description = "The API to check: openai, openai-completions, anthropic or embeddings.")
    String llmApi;

    /** token-benchmark's, so doctor reaches a private-CA, gateway or slow endpoint the way the run will. */
    @ArgGroup(validate = false, heading = "%nConnection (as in token-benchmark):%n")
    ConnectionFlags connection = new ConnectionFlags();

    DoctorCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        CommonOptions.checkLlmApi(llmApi);
        String baseVariable = CommonOptions.registered(llmApi).baseVariable();
        String base = context.env(baseVariable);
        if (base == null || base.isBlank()) {
            throw new UsageException(baseVariable + " is not set; export the server's base URL, e.g. "
                    + CommonOptions.registered(llmApi).defaultBase());
        }
        EndpointAccessFlags access = connection.access;
        Map<String, String> headers = CommonOptions.checkedHeaders(access);
        Doctor.Connection limits = CommonOptions.connectionLimits(connection);
        String key = access.apiKeyFile != null ? ApiKeyFile.read(access.apiKeyFile)
                : context.env(CommonOptions.registered(llmApi).keyVariable());
        CommonOptions.warnIfInsecure(access, context);
        List<DoctorCheck.Result> results = new Doctor(CommonOptions.registered(llmApi).adapter(true), base.strip(),
                key, access.apiKeyFile == null ? null : "--api-key-file " + access.apiKeyFile, model,
                new EndpointAccess(access.caCert, access.insecure, headers, CommonOptions.scrapeHeaders(access)),
                limits, context.err()).run();
        boolean allPassed = true;
        boolean warned = false;
        for (DoctorCheck.Result result : results) {
            context.out().println(result.render());
            allPassed &= result.passed();
            warned |= result.warning();
        }
        context.out().println(!allPassed ? "Some checks failed: see the fixes above."
                : warned ? "All checks passed, with warnings: see the notes above." : "All checks passed.");
        return allPassed ? ExitCodes.OK : ExitCodes.FAILURE;
    }
}
