/**
 * Workload manifests: a workload written as JSONL (header with tokenizer, seed and source digest, then one line per
 * request) so a later run replays exactly the same requests.
 */
package io.llmperf4j.datasets.manifest;
