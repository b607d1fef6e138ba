/**
 * Runs a benchmark start to end: a {@link io.llmperf4j.run.RunRequest} (built by the CLI from its flags, or by a Java
 * caller) executed by the {@link io.llmperf4j.run.Runner}. One flow for every token benchmark ({@code TokenRun}):
 * workload, locked results folder, the levels on this machine or on a cluster's workers (a {@code LoadExecutor}),
 * each model's levels, files and report ({@code ModelRun}), the comparison of models. Also the embeddings benchmark,
 * llmperf's correctness test, the doctor checks and the client's calibration.
 */
package io.llmperf4j.run;
