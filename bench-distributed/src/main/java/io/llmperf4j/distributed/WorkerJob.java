package io.llmperf4j.distributed;

import io.llmperf4j.model.RequestSpec;

import java.util.List;
import java.util.UUID;

/**
 * What the coordinator sends one worker. The start instant comes later ({@link StartShare}), once every worker has
 * set its share up ({@link ShareReady}).
 *
 * @param jobId            the run (one per coordinator run)
 * @param workerId         the worker's id as the coordinator knows it (its cluster address)
 * @param coordinator      the coordinator member's UUID: where records are streamed
 * @param client           how to reach the endpoint
 * @param load             this worker's concurrency or rate
 * @param specs            this worker's requests; each of the workload's requests goes to exactly one worker
 * @param promptSlice      null: {@code specs} are all the worker sends (once each, or in a loop); else the workload
 *                         is an endless sequence of fresh prompts ({@link io.llmperf4j.engine.load.FreshRequests}):
 *                         {@code specs} are this worker's part of its first batch, and the worker takes its part
 *                         (this slice) of each later batch from the coordinator ({@link PromptBatches})
 */
public record WorkerJob(String jobId, String workerId, UUID coordinator, ClientSpec client,
                        LoadShare load, List<RequestSpec> specs, Integer promptSlice) {
}
