package io.llmperf4j.run;

import io.llmperf4j.engine.load.PacedWorkload;
import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The sessions a level starts after its own: numbered on from the level's (ids and prompt indices), each batch's
 * own prompts, the same session for the same number, and the workload's sessions not played again.
 */
class FreshSessionsTest {

    /** Two sessions of two turns ("s0", "s1"), prompts tagged with {@code batch}. */
    private static PacedWorkload batch(int batch) {
        List<RequestSpec> specs = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            for (int t = 0; t < 2; t++) {
                specs.add(new RequestSpec(specs.size(), "b" + batch + " s" + s + " t" + t, 2, 3,
                        new RequestInputs(null, List.of(), List.of(), "s" + s, t)));
            }
        }
        return PacedWorkload.sessions(specs, turn -> 0L);
    }

    @Test
    void aLevelStartsItsOwnSessionsThenFreshOnesNumberedOn() {
        PacedWorkload own = batch(0);
        PacedWorkload level = own.withMoreSessions(new FreshSessions(own, FreshSessionsTest::batch, 1, line -> { }));
        List<String> ids = new ArrayList<>();
        Set<Integer> indices = new HashSet<>();
        Set<String> prompts = new HashSet<>();
        for (int k = 0; k < 7; k++) {
            PacedWorkload.Start start = level.start(k);
            ids.add(start.id());
            for (RequestSpec turn : start.turns()) {
                assertEquals(start.id(), turn.inputs().sessionId());
                assertTrue(indices.add(turn.index()), "prompt index " + turn.index() + " twice");
                assertTrue(prompts.add(turn.prompt()), turn.prompt() + " twice");
            }
        }
        assertEquals(List.of("s0", "s1", "s2", "s3", "s4", "s5", "s6"), ids);
        assertEquals("b3 s0 t1", level.start(6).turns().get(1).prompt()); // batch 3's first session
        assertSame(level.start(5).turns(), level.start(5).turns());
    }

    @Test
    void withoutMoreSessionsTheWorkloadsArePlayedAgain() {
        PacedWorkload own = batch(0);
        assertEquals(List.of("s0", "s1", "s0~1", "s1~1", "s0~2"),
                java.util.stream.IntStream.range(0, 5).mapToObj(k -> own.start(k).id()).toList());
        assertEquals("b0 s0 t0", own.start(2).turns().get(0).prompt());
    }

    @Test
    void aDrawThatFailsFailsTheSessionAskedFor() {
        PacedWorkload own = batch(0);
        FreshSessions more = new FreshSessions(own, k -> {
            throw new IllegalStateException("no corpus");
        }, 1, line -> { });
        assertThrows(IllegalStateException.class, () -> more.session(0));
    }
}
