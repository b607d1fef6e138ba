package io.llmperf4j.run;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertSame;

/** -Dllmperf4j.client-warmup=quick caps every warm-up of the process at the quick budget; anything else leaves it. */
class ClientWarmupCapTest {

    @Test
    void theQuickCapReplacesTheFullBudgetAndNothingElseDoes() {
        String before = System.getProperty(ClientWarmup.Budget.CAP_PROPERTY);
        try {
            System.clearProperty(ClientWarmup.Budget.CAP_PROPERTY);
            assertSame(ClientWarmup.Budget.FULL, ClientWarmup.Budget.capped(ClientWarmup.Budget.FULL));
            System.setProperty(ClientWarmup.Budget.CAP_PROPERTY, "full");
            assertSame(ClientWarmup.Budget.FULL, ClientWarmup.Budget.capped(ClientWarmup.Budget.FULL));
            System.setProperty(ClientWarmup.Budget.CAP_PROPERTY, "quick");
            assertSame(ClientWarmup.Budget.QUICK, ClientWarmup.Budget.capped(ClientWarmup.Budget.FULL));
            assertSame(ClientWarmup.Budget.QUICK, ClientWarmup.Budget.capped(ClientWarmup.Budget.QUICK));
        } finally {
            if (before == null) System.clearProperty(ClientWarmup.Budget.CAP_PROPERTY);
            else System.setProperty(ClientWarmup.Budget.CAP_PROPERTY, before);
        }
    }
}
