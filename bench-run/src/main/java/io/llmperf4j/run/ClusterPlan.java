package io.llmperf4j.run;

import io.llmperf4j.distributed.ClusterSettings;

import java.time.Duration;

/**
 * A run sent by the workers of a cluster instead of this process, which coordinates: the cluster to join, how many
 * workers to wait for and for how long.
 */
public record ClusterPlan(ClusterSettings settings, int workers, Duration workerWait) {
}
