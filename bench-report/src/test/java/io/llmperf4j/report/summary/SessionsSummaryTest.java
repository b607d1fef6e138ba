package io.llmperf4j.report.summary;

import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestTags;
import io.llmperf4j.report.metrics.TokenCounting;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.llmperf4j.report.testutil.Records.MS;
import static io.llmperf4j.report.testutil.Records.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The sessions section's input tokens by turn: each request's server prompt count (usage.prompt_tokens, its chat
 * template and the history included) where the server gave usage; without usage the client's count of what it sent
 * (the turn's number_input_tokens: the history's messages and replies plus its own message, no chat template).
 */
class SessionsSummaryTest {

    private static RequestRecord turn(int index, int turn, int clientInput, Integer serverPrompt) {
        return request(index).evenEvents(100 * MS, 10 * MS, 3).e2e(150 * MS).input(clientInput)
                .usage(serverPrompt, serverPrompt == null ? null : 3).client(4).build()
                .withTags(new RequestTags("s" + index / 2, turn, null, 0, 0, 0));
    }

    @Test
    void inputTokensByTurnAreTheServersPromptCount() {
        // two sessions of two turns; the server counts its chat template's tokens beside the client's
        SessionsSummary s = SessionsSummary.of(List.of(turn(0, 0, 40, 52), turn(1, 1, 90, 104),
                turn(2, 0, 60, 72), turn(3, 1, 110, 124)), TokenCounting.DEFAULT);
        assertEquals(2, s.byTurn().size());
        assertEquals(62.0, s.byTurn().get(0).inputTokensMean(), 1e-9);
        assertEquals(114.0, s.byTurn().get(1).inputTokensMean(), 1e-9);
        assertEquals(352L, s.promptTokens());
    }

    /**
     * A rest counts in the session its tag names, its turn where the tag puts it; a session id that only looks like a
     * rest's (a trace's own {@code conv~t1}) is a session of its own: the summary no longer reads ids.
     */
    @Test
    void aRestCountsInTheSessionItsTagNamesAndAnIdAloneMakesNoRest() {
        RequestRecord first = turn(0, 0, 40, 52).withTags(new RequestTags("conv", 0, null, 0, 0, 0)
                .withWorkloadSession(2, null));
        RequestRecord rest = turn(1, 1, 40, 52).withTags(new RequestTags("conv~t1", 1, null, 0, 0, 0)
                .withWorkloadSession(2, "conv"));
        RequestRecord lookalike = turn(2, 0, 40, 52).withTags(new RequestTags("conv~t1", 0, null, 0, 0, 0)
                .withWorkloadSession(1, null));
        SessionsSummary s = SessionsSummary.of(List.of(first, rest, lookalike), TokenCounting.DEFAULT);
        assertEquals(2, s.sessions(), "conv with its rest, and the trace's conv~t1");
        assertEquals(2, s.sessionsCompleted());
        assertEquals(List.of(0, 1), s.byTurn().stream().map(SessionsSummary.TurnJson::turn).toList());
        assertEquals(List.of(2, 1), s.byTurn().stream().map(SessionsSummary.TurnJson::requests).toList());
    }

    @Test
    void withoutUsageTheyAreTheClientsCountOfWhatItSent() {
        SessionsSummary s = SessionsSummary.of(List.of(turn(0, 0, 40, null), turn(1, 1, 90, null),
                turn(2, 0, 60, null), turn(3, 1, 110, null)), TokenCounting.DEFAULT);
        assertEquals(50.0, s.byTurn().get(0).inputTokensMean(), 1e-9);
        assertEquals(100.0, s.byTurn().get(1).inputTokensMean(), 1e-9);
        assertNull(s.promptTokens(), "the server gave no prompt count");
        assertNull(s.prefixCacheHitRate());
    }
}
