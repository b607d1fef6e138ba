package io.llmperf4j.datasets;

import io.llmperf4j.tokenize.prompt.PythonRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * Generates the built-in corpus: lines of plain English-like verse from fixed word lists and sentence patterns,
 * drawn with a fixed seed. Only integer draws ({@code randbelow}) are used, so the text is identical on every
 * machine and JVM. Changing anything here changes every prompt: bump {@link #ID} if you must.
 */
final class DefaultVerse {
    static final String ID = "llmperf4j-verse-v1";
    static final int LINE_COUNT = 84; // as many lines as llmperf's sonnet.txt
    private static final long SEED = 20_240_601L;

    private static final List<String> DETERMINERS = List.of("the", "a", "my", "your", "each", "every", "that", "this", "our", "some");
    private static final List<String> ADJECTIVES = List.of("silent", "golden", "gentle", "weary", "bright", "hollow",
            "distant", "tender", "restless", "ancient", "quiet", "crimson", "fading", "patient", "silver", "bitter",
            "wandering", "secret", "steady", "humble", "sudden", "open", "hidden", "early", "lonely", "amber");
    private static final List<String> NOUNS = List.of("river", "morning", "harbor", "lantern", "meadow", "garden",
            "shadow", "mountain", "candle", "window", "evening", "orchard", "letter", "harvest", "journey", "winter",
            "summer", "forest", "ocean", "valley", "city", "season", "promise", "memory", "traveler", "sparrow",
            "mirror", "compass", "ember", "tide", "heart", "voice");
    private static final List<String> TRANSITIVE_VERBS = List.of("keeps", "carries", "follows", "remembers", "gathers",
            "answers", "warms", "guards", "holds", "crosses", "greets", "hides", "mends", "lifts", "calls", "covers",
            "frames", "chases", "shelters", "watches");
    private static final List<String> INTRANSITIVE_VERBS = List.of("waits", "sleeps", "turns", "listens", "lingers",
            "rests", "wanders", "grows", "fades", "returns", "trembles", "glows", "sings", "burns");
    private static final List<String> PREPOSITIONS = List.of("beneath", "beyond", "across", "along", "above", "behind",
            "before", "within", "toward", "upon", "around", "under");
    private static final List<String> ADVERBS = List.of("softly", "slowly", "always", "gently", "quietly", "lately",
            "still", "often", "sometimes", "never");
    private static final List<String> OPENING_CONJUNCTIONS = List.of("and", "but", "yet", "while");
    private static final List<String> JOINING_CONJUNCTIONS = List.of("and", "but", "yet");
    private static final List<String> LINE_ENDS = List.of(",", ",", ",", ";", ".", ".");

    /**
     * D determiner, A adjective, N noun, T transitive verb, I intransitive verb, P preposition, R adverb,
     * C conjunction opening a line, K conjunction joining a second verb.
     */
    private static final List<String> PATTERNS = List.of(
            "DANTDNPDN",     // The silent river keeps a promise beneath the mountain (9 words)
            "PDANDNIR",      // Beyond the golden harbor the sparrow waits softly (8)
            "DNTDANKIR",     // The traveler carries a patient lantern and wanders slowly (9)
            "CDANIPDAN",     // Yet the weary candle glows beneath the distant tide (9)
            "RDNTDANPDN",    // Slowly the winter covers the hollow meadow beyond the city (10)
            "DNPDANTDANKI",  // The lantern beneath the ancient window holds a tender memory and fades (12)
            "DANIRPDAN",     // The quiet ember burns still upon the crimson garden (9)
            "DNIPDANKIR");   // The sparrow waits beneath the golden harbor and sings softly (10)

    static final Corpus CORPUS = Corpus.of(ID, LINE_COUNT + " lines of generated English-like verse (" + ID
            + ", built in; llmperf's sonnet.txt cannot be shipped)", generate());

    private DefaultVerse() {
    }

    static List<String> generate() {
        PythonRandom random = new PythonRandom(SEED);
        List<String> lines = new ArrayList<>(LINE_COUNT);
        for (int i = 0; i < LINE_COUNT; i++) {
            String pattern = pick(random, PATTERNS);
            boolean last = i == LINE_COUNT - 1;
            String end = last ? "." : pick(random, LINE_ENDS);
            lines.add(line(random, pattern) + end + (last ? "" : "\n"));
        }
        return lines;
    }

    private static String line(PythonRandom random, String pattern) {
        List<String> words = new ArrayList<>();
        for (char part : pattern.toCharArray()) words.add(pick(random, wordsFor(part)));
        for (int i = 0; i + 1 < words.size(); i++) {
            if (words.get(i).equals("a") && startsWithVowel(words.get(i + 1))) words.set(i, "an");
        }
        String text = String.join(" ", words);
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    private static List<String> wordsFor(char part) {
        return switch (part) {
            case 'D' -> DETERMINERS;
            case 'A' -> ADJECTIVES;
            case 'N' -> NOUNS;
            case 'T' -> TRANSITIVE_VERBS;
            case 'I' -> INTRANSITIVE_VERBS;
            case 'P' -> PREPOSITIONS;
            case 'R' -> ADVERBS;
            case 'C' -> OPENING_CONJUNCTIONS;
            case 'K' -> JOINING_CONJUNCTIONS;
            default -> throw new IllegalStateException("unknown part of speech " + part);
        };
    }

    private static boolean startsWithVowel(String word) {
        return "aeiou".indexOf(word.charAt(0)) >= 0;
    }

    private static <T> T pick(PythonRandom random, List<T> choices) {
        return choices.get(random.randbelow(choices.size()));
    }
}
