/**
 * The server's side of a run: what an LLM server says about itself on its Prometheus {@code /metrics} endpoint,
 * scraped during the run and set beside the client's timeline.
 *
 * <ul>
 *   <li>{@code exposition}: a strict parser of the Prometheus text format 0.0.4 and OpenMetrics 1.0 text, and a
 *       writer of 0.0.4 text;</li>
 *   <li>{@code scrape}: the scraper (its own thread, connection and timeout; failures become gaps) and the
 *       {@code doctor} probe;</li>
 *   <li>{@code timeline}: every scrape of a run, samples interned per series;</li>
 *   <li>{@code engines}: the one table of families vLLM, SGLang and TGI expose and what each means;</li>
 *   <li>{@code summary} and {@code csv}: the server-side summary over the measured window and the tidy CSV;</li>
 *   <li>{@code vllm}: vLLM-named exposition text for the embedded simulator's {@code /metrics}.</li>
 * </ul>
 * Nothing here depends on the engine, the report or the CLI: results flow out, nothing flows back.
 */
package io.llmperf4j.servermetrics;
