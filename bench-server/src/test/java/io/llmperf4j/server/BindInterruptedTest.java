package io.llmperf4j.server;

import org.junit.jupiter.api.RepeatedTest;

import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An interrupt while the server waits for its bind leaves the port free and the thread still interrupted. */
class BindInterruptedTest {

    @RepeatedTest(10)
    void anInterruptedBindFreesThePortAndKeepsTheInterrupt() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        SimulatorConfig config = SimulatorConfig.builder().port(port).build();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        // interrupted before it starts, the thread's wait for the bind ends at once, before the bind is done
        Thread binding = new Thread(() -> {
            Thread.currentThread().interrupt();
            try (SimulatedServer ignored = SimulatedServer.start(config)) {
                // the bind was done before the wait began: a server that works, closed here
            } catch (UncheckedIOException e) {
                failure.set(e);
            }
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        binding.start();
        binding.join();

        if (failure.get() != null) {
            assertEquals("could not bind 127.0.0.1:" + port + ": interrupted", failure.get().getMessage());
        }
        assertTrue(stillInterrupted.get(), "the interrupt is re-asserted");
        try (SimulatedServer again = SimulatedServer.start(config)) {
            assertEquals(port, again.port());
        }
    }
}
