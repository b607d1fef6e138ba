package io.llmperf4j.cli;

import io.llmperf4j.engine.client.ApiRegistry;
import io.llmperf4j.engine.client.ConnectionMode;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * The values of the options that take one of a fixed set of words, for {@code generate-completion}'s script (picocli
 * bakes an option's {@code completionCandidates} into it): the shell then offers {@code openai anthropic ...} after
 * {@code --llm-api}. Each set is written where its words are decided, or once here beside the option's label.
 */
abstract class CompletionValues implements Iterable<String> {
    private final List<String> values;

    CompletionValues(List<String> values) {
        this.values = List.copyOf(values);
    }

    CompletionValues(String... values) {
        this(Arrays.asList(values));
    }

    @Override
    public Iterator<String> iterator() {
        return values.iterator();
    }

    /** {@code --llm-api}: the API registry's names. */
    static final class LlmApis extends CompletionValues {
        LlmApis() {
            super(ApiRegistry.names());
        }
    }

    /** {@code --connection-mode}: the enum's names as users type them. */
    static final class ConnectionModes extends CompletionValues {
        ConnectionModes() {
            super(Arrays.stream(ConnectionMode.values()).map(ConnectionFlags.ConnectionModeConverter::flagName)
                    .toList());
        }
    }

    static final class OutputFormats extends CompletionValues {
        OutputFormats() {
            super("text", "json");
        }
    }

    static final class PromptModes extends CompletionValues {
        PromptModes() {
            super("llmperf", "exact");
        }
    }

    static final class Scenarios extends CompletionValues {
        Scenarios() {
            super("t1", "t2", "t3", "t4");
        }
    }

    static final class ScenarioLanguages extends CompletionValues {
        ScenarioLanguages() {
            super("en", "zh");
        }
    }

    static final class Arrivals extends CompletionValues {
        Arrivals() {
            super("constant", "poisson", "gamma");
        }
    }

    static final class SearchAxes extends CompletionValues {
        SearchAxes() {
            super("concurrency", "rate");
        }
    }

    static final class ImageFormats extends CompletionValues {
        ImageFormats() {
            super("png", "jpeg");
        }
    }

    static final class ImageUrlModes extends CompletionValues {
        ImageUrlModes() {
            super("data", "url");
        }
    }

    static final class ImageDetails extends CompletionValues {
        ImageDetails() {
            super("low", "high", "auto");
        }
    }

    static final class Engines extends CompletionValues {
        Engines() {
            super("sim", "llama");
        }
    }
}
