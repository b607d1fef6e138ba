package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

/**
 * llmperf's APIs this tool does not call are refused with what to use instead (the QA pass's `--llm-api litellm`,
 * llmperf's leaderboard value, got a bare "not supported yet"): one line, exit 2, before anything is sent.
 */
class LlmperfOnlyApiHintTest {

    @ParameterizedTest
    @ValueSource(strings = {"litellm", "sagemaker", "vertexai"})
    void anLlmperfOnlyApiNamesTheOpenAiAlternative(String api) {
        CliRun run = CliRun.of(Map.of("OPENAI_API_BASE", "http://127.0.0.1:9/v1", "OPENAI_API_KEY", "k"),
                "token-benchmark", "--model", "m", "--llm-api", api);
        run.assertOneErrorLine(ExitCodes.USAGE, "--llm-api " + api + " is not supported yet; supported: "
                + String.join(", ", ApiRegistry.names()) + "; for an OpenAI-compatible provider or proxy (LiteLLM's "
                + "proxy, a SageMaker or Vertex AI endpoint serving OpenAI's API) use --llm-api openai with its base "
                + "URL in OPENAI_API_BASE");
    }
}
