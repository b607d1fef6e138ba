package io.llmperf4j.datasets;

import io.llmperf4j.tokenize.Tokenizer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The four-scenario test matrix of the concurrency-sweep guide: one fixed prompt each, only {@code max_tokens}
 * and the prompt's length change, so T1 isolates scheduling and prefill, and T3 against T4 isolates output length
 * (T4 sends T3's prompt). The guide runs each with {@value #GUIDE_REQUESTS} requests per concurrency level over
 * {@link #GUIDE_CONCURRENCY_SWEEP}, pausing {@link #GUIDE_PAUSE} between runs. Prompt texts are llmperf4j's own, in
 * English and Chinese.
 */
public enum Scenario {
    T1("ttft-baseline", "TTFT baseline", 16),
    T2("realtime-chat", "Real-time chat", 64),
    T3("main-comparison", "Main comparison", 512),
    T4("long-generation", "Long generation", 2048);

    /** Requests per concurrency level in the guide's runs. */
    public static final int GUIDE_REQUESTS = 50;
    /** The guide's concurrency sweep. */
    public static final List<Integer> GUIDE_CONCURRENCY_SWEEP = List.of(1, 5, 10, 20, 50);
    /** The guide's pause between runs. */
    public static final Duration GUIDE_PAUSE = Duration.ofSeconds(5);

    private static final String GREETING_EN = "Hi there! How is your day going?";
    private static final String GREETING_ZH = "你好！今天过得怎么样？";
    private static final String SUMMARY_EN =
            "In one sentence, summarize why getting enough sleep matters for good health.";
    private static final String SUMMARY_ZH = "请用一句话概括为什么充足的睡眠对健康很重要。";
    private static final String EXPLANATION_EN = "Explain in detail how artificial intelligence is used in the "
            + "manufacturing industry. Cover visual quality inspection, predictive maintenance, supply chain planning "
            + "and production scheduling. For each application, describe how it works, what data it needs, what "
            + "benefits it brings, and which challenges factories face when they adopt it.";
    private static final String EXPLANATION_ZH = "请详细介绍人工智能在制造业中的应用，包括视觉质量检测、预测性维护、"
            + "供应链规划和生产排程。对每一项应用，请说明它的工作原理、需要哪些数据、能带来哪些收益，"
            + "以及工厂在引入时会遇到哪些挑战。";

    private final String slug;
    private final String title;
    private final int maxTokens;

    Scenario(String slug, String title, int maxTokens) {
        this.slug = slug;
        this.title = title;
        this.maxTokens = maxTokens;
    }

    /** {@code T1} to {@code T4}. */
    public String id() {
        return name();
    }

    /** A file-name-friendly name: {@code ttft-baseline}, {@code realtime-chat}, ... */
    public String slug() {
        return slug;
    }

    /** A human title: "TTFT baseline", ... */
    public String title() {
        return title;
    }

    /** The {@code max_tokens} sent: 16, 64, 512, 2048. */
    public int maxTokens() {
        return maxTokens;
    }

    /** The prompt: a greeting (T1), a one-sentence summary request (T2), a detailed explanation request (T3, T4). */
    public String prompt(Language language) {
        boolean zh = language == Language.ZH;
        return switch (this) {
            case T1 -> zh ? GREETING_ZH : GREETING_EN;
            case T2 -> zh ? SUMMARY_ZH : SUMMARY_EN;
            case T3, T4 -> zh ? EXPLANATION_ZH : EXPLANATION_EN;
        };
    }

    /** {@code count} requests of this scenario's prompt, counted with {@code tokenizer}. */
    public Workload workload(Language language, int count, Tokenizer tokenizer) {
        Map<String, Object> generation = new LinkedHashMap<>();
        generation.put("scenario", id());
        generation.put("title", title);
        generation.put("language", language.code());
        return FixedPrompt.workload(Workload.SCENARIO, "scenario:" + id() + ":" + language.code(), prompt(language),
                maxTokens, count, tokenizer, generation);
    }

    /**
     * Parses {@code T1}..{@code T4} or a slug ({@code main-comparison}), any case.
     *
     * @throws IllegalArgumentException listing the scenarios
     */
    public static Scenario parse(String text) {
        String value = text == null ? "" : text.strip();
        for (Scenario scenario : values()) {
            if (scenario.name().equalsIgnoreCase(value) || scenario.slug.equals(value.toLowerCase(Locale.ROOT))) {
                return scenario;
            }
        }
        StringBuilder known = new StringBuilder();
        for (Scenario scenario : values()) {
            if (known.length() > 0) known.append(", ");
            known.append(scenario.name()).append(" (").append(scenario.slug).append(", max_tokens ")
                    .append(scenario.maxTokens).append(')');
        }
        throw new IllegalArgumentException("Unknown scenario '" + text + "'; use one of " + known);
    }
}
