package io.llmperf4j.engine.harness;

/** JMH's iteration kinds: only measurement iterations count towards the score. */
public enum IterationType {
    WARMUP,
    MEASUREMENT
}
