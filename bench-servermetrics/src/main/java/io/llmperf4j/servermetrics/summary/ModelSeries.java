package io.llmperf4j.servermetrics.summary;

import io.llmperf4j.servermetrics.timeline.Series;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which of a family's series speak for the run's model: where the server labels its series by model (vLLM's and
 * SGLang's {@code model_name}), that model's alone; without such a label, or with none for the model, all of them.
 * It remembers per figure what it did, for the warnings. The summary ({@link ServerSideSummarizer}) and the page's
 * time series ({@link ServerTimeSeries}) each select through one instance, so both read the same series.
 */
final class ModelSeries {

    /** The labels that name a series' model, in order of preference. */
    static final List<String> MODEL_LABELS = List.of("model_name", "model");

    /** The run's model, or null to add up every model's series. */
    private final String model;
    /** Figures read from the run's model's series alone. */
    private final Set<String> selectedFigures = new TreeSet<>();
    /** Figures added up over every series: the label they would be selected by was missing ... */
    private final Set<String> unlabelledFigures = new TreeSet<>();
    /** ... or no series carried the run's model. */
    private final Set<String> unmatchedFigures = new TreeSet<>();
    /** The model label's values the server served. */
    private final Set<String> modelsServed = new TreeSet<>();
    private String modelLabel;

    /** @param model the run's model, or null to add up every model's series */
    ModelSeries(String model) {
        this.model = model;
    }

    /**
     * The run's model's series among {@code series} where they carry a model label and some carry the run's model;
     * otherwise all of them (noted for the warnings, by {@code figure}).
     */
    List<Series> select(List<Series> series, String figure) {
        if (series.isEmpty()) return series;
        String key = null;
        for (String k : MODEL_LABELS) {
            if (series.stream().anyMatch(s -> s.labels().get(k) != null)) {
                key = k;
                break;
            }
        }
        if (key == null) {
            unlabelledFigures.add(figure);
            return series;
        }
        if (modelLabel == null) modelLabel = key;
        String label = key;
        series.forEach(s -> {
            String v = s.labels().get(label);
            if (v != null) modelsServed.add(v);
        });
        if (model == null) return series;
        List<Series> mine = series.stream().filter(s -> model.equals(s.labels().get(label))).toList();
        if (mine.isEmpty()) {
            unmatchedFigures.add(figure);
            return series;
        }
        selectedFigures.add(figure);
        return mine;
    }

    /** The run's model when some figure was read from its series alone; null when every figure added them all up. */
    String selectedModel() {
        return selectedFigures.isEmpty() ? null : model;
    }

    /** What the selection leaves doubtful: figures that include other traffic on the server. */
    List<String> warnings() {
        List<String> out = new ArrayList<>();
        if (model != null && (!unlabelledFigures.isEmpty() || !unmatchedFigures.isEmpty())) {
            if (selectedFigures.isEmpty() && !unmatchedFigures.isEmpty()) {
                out.add("no series labelled " + modelLabel + "=\"" + model + "\" (the server's: "
                        + String.join(", ", modelsServed) + "): the figures add up every model's series, so other "
                        + "traffic on the server is included");
            } else if (selectedFigures.isEmpty()) {
                out.add("the server's series carry no model label: the figures are the whole server's, so traffic "
                        + "other than this run's is included");
            } else {
                Set<String> summed = new TreeSet<>(unlabelledFigures);
                summed.addAll(unmatchedFigures);
                out.add(String.join(", ", summed) + ": no series of model " + model + " (no model label, or none for "
                        + "it): added up over every series, other traffic on the server included");
            }
        } else if (model == null && modelsServed.size() > 1) {
            out.add("the figures add up the series of " + modelsServed.size() + " models ("
                    + String.join(", ", modelsServed) + "), other traffic on the server included");
        }
        return out;
    }
}
