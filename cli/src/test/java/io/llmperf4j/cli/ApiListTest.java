package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every place the command line lists APIs names exactly the registry's: help texts and the refusal of others. */
class ApiListTest {

    @Test
    void theHelpOfEveryCommandThatTakesAnApiNamesEveryRegisteredApi() {
        for (String command : new String[] {"token-benchmark", "correctness", "doctor"}) {
            CliRun help = CliRun.of(Map.of(), command, "--help");
            String llmApi = help.out().substring(help.out().indexOf("--llm-api"));
            for (String api : ApiRegistry.names()) {
                assertTrue(llmApi.contains(api), command + " --help names " + api + ":\n" + help.out());
            }
        }
    }

    @Test
    void anUnknownApiIsRefusedWithTheRegisteredOnes() {
        String supported = String.join(", ", ApiRegistry.names());
        CliRun.of(Map.of(), "token-benchmark", "--llm-api", "litellm")
                .assertOneErrorLine(ExitCodes.USAGE, "--llm-api litellm is not supported yet; supported: " + supported);
        CliRun.of(Map.of(), "doctor", "--llm-api", "nope")
                .assertOneErrorLine(ExitCodes.USAGE, "unknown --llm-api 'nope'; supported: " + supported);
    }
}
