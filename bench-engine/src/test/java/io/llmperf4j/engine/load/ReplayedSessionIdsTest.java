package io.llmperf4j.engine.load;

import io.llmperf4j.model.RequestInputs;
import io.llmperf4j.model.RequestSpec;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A run that plays a workload again names each replay {@code <id>~<pass>}; a workload whose own ids are passes
 * already (a ShareGPT dataset whose conversations were replayed to fill the requests: c1, c1~1) has its replays
 * numbered after them, so no two sessions share an id (the sessions summary would merge them).
 */
class ReplayedSessionIdsTest {

    private static PacedWorkload workload(String... ids) {
        List<RequestSpec> specs = new ArrayList<>();
        for (String id : ids) {
            for (int t = 0; t < 2; t++) {
                specs.add(new RequestSpec(specs.size(), "p", 2, 3, new RequestInputs(null, List.of(), List.of(), id, t)));
            }
        }
        return PacedWorkload.sessions(specs, PacedWorkload.ThinkTime.NONE);
    }

    private static List<String> ids(PacedWorkload w, int count) {
        List<String> ids = new ArrayList<>();
        for (int k = 0; k < count; k++) ids.add(w.start(k).id());
        return ids;
    }

    @Test
    void aWorkloadWithoutPassesIsReplayedAsBefore() {
        assertEquals(List.of("s0", "s1", "s0~1", "s1~1", "s0~2"), ids(workload("s0", "s1"), 5));
    }

    @Test
    void aWorkloadOfPassesHasItsReplaysNumberedAfterThem() {
        List<String> ids = ids(workload("c1", "c2", "c1~1", "c2~1"), 12);
        assertEquals(List.of("c1", "c2", "c1~1", "c2~1", "c1~2", "c2~2", "c1~3", "c2~3", "c1~4", "c2~4", "c1~5",
                "c2~5"), ids);
        assertEquals(ids.size(), new HashSet<>(ids).size(), ids::toString);
    }

    @Test
    void anIdWhoseTailIsNotAPassKeepsItWhole() {
        Set<String> ids = new HashSet<>(ids(workload("a~t2", "b~", "x~1"), 6));
        assertEquals(Set.of("a~t2", "b~", "x~1", "a~t2~2", "b~~2", "x~3"), ids);
    }
}
