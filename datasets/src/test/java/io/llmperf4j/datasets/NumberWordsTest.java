package io.llmperf4j.datasets;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class NumberWordsTest {

    /**
     * num2words' own tests and docs (199, 150, 158, 2000, 2001, 3000, 4778, "one thousand and third" for 1003,
     * "sixty-six million"), the brief's examples, and the cases each merge rule decides.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0|zero",
        "1|one",
        "5|five",
        "10|ten",
        "11|eleven",
        "12|twelve",
        "13|thirteen",
        "19|nineteen",
        "20|twenty",
        "21|twenty-one",
        "38|thirty-eight",
        "40|forty",
        "99|ninety-nine",
        "100|one hundred",
        "101|one hundred and one",
        "105|one hundred and five",
        "110|one hundred and ten",
        "130|one hundred and thirty",
        "150|one hundred and fifty",
        "158|one hundred and fifty-eight",
        "199|one hundred and ninety-nine",
        "200|two hundred",
        "999|nine hundred and ninety-nine",
        "1000|one thousand",
        "1001|one thousand and one",
        "1003|one thousand and three",
        "1010|one thousand and ten",
        "1099|one thousand and ninety-nine",
        "1100|one thousand, one hundred",
        "1101|one thousand, one hundred and one",
        "1234|one thousand, two hundred and thirty-four",
        "2000|two thousand",
        "2001|two thousand and one",
        "3000|three thousand",
        "4778|four thousand, seven hundred and seventy-eight",
        "9999|nine thousand, nine hundred and ninety-nine",
        "10000|ten thousand",
        "10001|ten thousand and one",
        "21000|twenty-one thousand",
        "21500|twenty-one thousand, five hundred",
        "99999|ninety-nine thousand, nine hundred and ninety-nine",
        "100000|one hundred thousand",
        "101000|one hundred and one thousand",
        "150000|one hundred and fifty thousand",
        "650123|six hundred and fifty thousand, one hundred and twenty-three",
        "999999|nine hundred and ninety-nine thousand, nine hundred and ninety-nine",
        "1000000|one million",
        "1001000|one million, one thousand",
        "2000001|two million and one",
        "66000000|sixty-six million",
        "1000000000|one billion",
    })
    void writesNumbersAsNum2wordsDoes(long value, String words) {
        assertEquals(words, NumberWords.toWords(value));
        assertEquals(value, NumberWords.parse(words));
    }

    @Test
    void everyNumberLlmperfDrawsRoundTrips() {
        for (int n = 0; n <= CorrectnessPrompts.MAX_RANDOM_NUMBER; n++) {
            assertEquals(n, NumberWords.parse(NumberWords.toWords(n)), () -> "round trip failed");
        }
        for (long n = 10_001; n < NumberWords.LIMIT; n = n * 3 + 7) {
            assertEquals(n, NumberWords.parse(NumberWords.toWords(n)));
        }
    }

    @Test
    void parseIgnoresCaseCommasAndSpacing() {
        assertEquals(1234, NumberWords.parse("  One Thousand,Two Hundred and Thirty-Four "));
    }

    @Test
    void rejectsWhatItCannotWriteOrRead() {
        assertThrows(IllegalArgumentException.class, () -> NumberWords.toWords(-1));
        assertThrows(IllegalArgumentException.class, () -> NumberWords.toWords(NumberWords.LIMIT));
        assertEquals("'lots' in 'lots of apples' is not a number word",
                assertThrows(IllegalArgumentException.class, () -> NumberWords.parse("lots of apples")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> NumberWords.parse(" and "));
    }
}
