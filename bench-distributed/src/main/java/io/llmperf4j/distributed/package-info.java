/**
 * Load past one machine, on an embedded Hazelcast cluster: {@code LoadWorker}s send a share of the requests with
 * their own client and stream each record back as it ends; the {@code Coordinator} waits for the workers, measures
 * their clock offsets ({@code ClockProbe}), splits the plan ({@code WorkloadSplit}, {@code LoadShare}) and merges
 * the records into one run ({@code RunMerger}). API keys never travel; {@code Wire} holds what does.
 */
package io.llmperf4j.distributed;
