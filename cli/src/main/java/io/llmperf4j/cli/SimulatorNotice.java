package io.llmperf4j.cli;

import io.llmperf4j.run.CommonSettings;
import io.llmperf4j.run.EndpointTarget;

import java.io.PrintStream;

/**
 * The last line of a run against the embedded simulated server, below llmperf's block: whoever reads only the end of
 * stdout (a CI log, a pasted result) learns the figures are not an endpoint's. llmperf itself fails without
 * OPENAI_API_BASE, so its block never stands for a simulator.
 */
final class SimulatorNotice {
    private SimulatorNotice() {
    }

    /** The line for {@code settings}' run, on {@code report}; nothing for a run against a real endpoint. */
    static void print(CommonSettings settings, PrintStream report) {
        if (settings.target() instanceof EndpointTarget.Embedded embedded) {
            report.println(line(embedded));
            report.flush();
        }
    }

    static String line(EndpointTarget.Embedded embedded) {
        return "Simulated: these figures are llmperf4j's embedded simulated server's, not a real endpoint's ("
                + embedded.baseVariable() + " is not set).";
    }
}
