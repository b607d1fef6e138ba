/**
 * Load models that drive an {@link io.llmperf4j.engine.client.LlmClient}.
 * <ul>
 *   <li>{@link io.llmperf4j.engine.load.ClosedLoopRunner}: llmperf's closed loop (N users re-sending immediately),
 *       without its over-issue and with every outcome recorded;</li>
 *   <li>{@link io.llmperf4j.engine.load.OpenLoopRunner}: requests at the precomputed, seeded intended times of an
 *       {@link io.llmperf4j.engine.load.ArrivalSchedule} (constant, Poisson or gamma), optionally capped; every
 *       request keeps its intended and actual send time ({@link io.llmperf4j.engine.load.ScheduledRecord}) so
 *       latencies can be reported free of coordinated omission;</li>
 *   <li>{@link io.llmperf4j.engine.load.Sweep}: the same workload at several levels, and the
 *       {@link io.llmperf4j.engine.load.SaturationVerdict} over them;</li>
 *   <li>{@link io.llmperf4j.engine.load.LoadProfile}: the load as sealed, validated data, expanded into
 *       {@link io.llmperf4j.engine.load.LoadSettings} per level.</li>
 * </ul>
 * Coordinated omission: a latency measured from the actual send hides the time a request waited to be sent (behind
 * a concurrency cap, or a pacer running late). Open-loop results keep both and report both; use the latencies from
 * the intended send to judge what users see. (HdrHistogram's second fix, back-filling values after the fact, is not
 * used: the intended time is known exactly, so no correction is needed.)
 */
package io.llmperf4j.engine.load;
