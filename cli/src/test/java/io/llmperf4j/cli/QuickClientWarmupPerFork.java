package io.llmperf4j.cli;

import io.llmperf4j.run.ClientWarmup;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Warms each test JVM's client once with the quick budget, before its first test class. The warm-up runs once per
 * JVM ({@link ClientWarmup} keeps a static flag), with the budget of whichever command comes first; in a test fork
 * that was often a sweep or an open loop, whose full budget ran to its 12 s bound on a loaded 2-core machine: seconds
 * that no assertion looks at. No in-process test checks the warm-up itself (the launcher's process tests do: {@code
 * InterruptTest}), and a fork whose first command was a short plain run already had only the quick one.
 * Registered in META-INF/services; JUnit opens a session per class under surefire, hence the static flag's guard.
 */
public final class QuickClientWarmupPerFork implements LauncherSessionListener {
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        if (!ClientWarmup.warmed()) ClientWarmup.run(null, ClientWarmup.Budget.QUICK);
    }
}
