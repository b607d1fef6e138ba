/**
 * Image inputs for vision-language benchmarks: seeded synthetic images of controlled size ({@link
 * io.llmperf4j.datasets.images.SyntheticImages}), images from a folder or a dataset, all held once in an
 * {@link io.llmperf4j.datasets.images.ImageLibrary} and shared by every request that sends them, and attached to a
 * workload by {@link io.llmperf4j.datasets.images.ImageAttachment}.
 */
package io.llmperf4j.datasets.images;
