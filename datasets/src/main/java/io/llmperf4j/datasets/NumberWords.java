package io.llmperf4j.datasets;

import java.util.Locale;
import java.util.Map;

/**
 * English number words exactly as Python's {@code num2words(n)} (language "en") writes them, which is how llmperf's
 * correctness test phrases its numbers, and the way back.
 *
 * <p>num2words splits a number on its largest "card" (billion, million, thousand, hundred, ninety … thirty, twenty …
 * zero): {@code n = div * card + mod}, words for {@code div} (or "one" when it is 1), then the card, then words for
 * {@code mod}, joined pairwise from the left by {@code Num2Word_EN.merge}:
 * <ul>
 *   <li>"one" before a number below 100 disappears ("one" + "five" = "five");</li>
 *   <li>tens before a smaller unit take a hyphen: "twenty-one";</li>
 *   <li>100 or more before a number below 100 takes " and ": "one hundred and five", "one thousand and one";</li>
 *   <li>a smaller number before a larger card multiplies with a space: "two hundred", "twenty-one thousand";</li>
 *   <li>otherwise (the rest is 100 or more) ", ": "one thousand, one hundred", "one million, two thousand".</li>
 * </ul>
 * So 1234 is "one thousand, two hundred and thirty-four" and 2000 is "two thousand". This class is that algorithm
 * (base.splitnum, base.clean, lang_EN.merge), not a general English style.
 */
public final class NumberWords {
    /** Values below this are supported (num2words' own limit is far higher; llmperf draws 0..10000). */
    public static final long LIMIT = 1_000_000_000_000L;

    private static final long[] CARDS = {
        1_000_000_000L, 1_000_000L, 1000, 100, 90, 80, 70, 60, 50, 40, 30,
        20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    private static final String[] CARD_WORDS = {
        "billion", "million", "thousand", "hundred", "ninety", "eighty", "seventy", "sixty", "fifty", "forty", "thirty",
        "twenty", "nineteen", "eighteen", "seventeen", "sixteen", "fifteen", "fourteen", "thirteen", "twelve",
        "eleven", "ten", "nine", "eight", "seven", "six", "five", "four", "three", "two", "one", "zero"};
    private static final Map<String, Long> SCALES = Map.of("thousand", 1000L, "million", 1_000_000L,
            "billion", 1_000_000_000L);

    private NumberWords() {
    }

    /**
     * {@code num2words(value)}.
     *
     * @throws IllegalArgumentException when {@code value} is negative or not below {@link #LIMIT}
     */
    public static String toWords(long value) {
        if (value < 0 || value >= LIMIT) {
            throw new IllegalArgumentException("value (" + value + ") must be within 0.." + (LIMIT - 1));
        }
        return words(value).text;
    }

    /**
     * The number {@link #toWords} wrote: "one thousand, two hundred and thirty-four" gives 1234. Case, commas,
     * hyphens, "and" and runs of spaces are not significant.
     *
     * @throws IllegalArgumentException on a word that is not a number word, or no number word at all
     */
    public static long parse(String words) {
        String[] tokens = words.toLowerCase(Locale.ROOT).replace(',', ' ').replace('-', ' ').strip().split("\\s+");
        long total = 0;
        long current = 0;
        boolean any = false;
        for (String token : tokens) {
            if (token.isEmpty() || token.equals("and")) {
                continue;
            }
            any = true;
            Long scale = SCALES.get(token);
            if (scale != null) {
                total += current * scale;
                current = 0;
            } else if (token.equals("hundred")) {
                current *= 100;
            } else {
                current += smallValue(token, words);
            }
        }
        if (!any) {
            throw new IllegalArgumentException("no number words in '" + words + "'");
        }
        return total + current;
    }

    private static long smallValue(String token, String words) {
        for (int i = 0; i < CARDS.length; i++) {
            if (CARDS[i] < 100 && CARD_WORDS[i].equals(token)) {
                return CARDS[i];
            }
        }
        throw new IllegalArgumentException("'" + token + "' in '" + words + "' is not a number word");
    }

    /** base.splitnum followed by base.clean: div, card, mod merged from the left. */
    private static Words words(long value) {
        int card = 0;
        while (CARDS[card] > value) {
            card++;
        }
        long elem = CARDS[card];
        long div = value == 0 ? 1 : value / elem;
        long mod = value == 0 ? 0 : value % elem;
        Words left = div == 1 ? new Words("one", 1) : words(div);
        Words merged = merge(left, new Words(CARD_WORDS[card], elem));
        return mod == 0 ? merged : merge(merged, words(mod));
    }

    /** lang_EN.Num2Word_EN.merge. */
    private static Words merge(Words l, Words r) {
        if (l.value == 1 && r.value < 100) {
            return r;
        } else if (100 > l.value && l.value > r.value) {
            return new Words(l.text + "-" + r.text, l.value + r.value);
        } else if (l.value >= 100 && 100 > r.value) {
            return new Words(l.text + " and " + r.text, l.value + r.value);
        } else if (r.value > l.value) {
            return new Words(l.text + " " + r.text, l.value * r.value);
        }
        return new Words(l.text + ", " + r.text, l.value + r.value);
    }

    private record Words(String text, long value) {
    }
}
