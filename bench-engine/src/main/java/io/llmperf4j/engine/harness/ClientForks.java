package io.llmperf4j.engine.harness;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.load.LoadResult;
import io.llmperf4j.engine.load.LoadRunner;
import io.llmperf4j.engine.load.LoadSettings;
import io.llmperf4j.engine.load.RecordListener;
import io.llmperf4j.model.RequestSpec;
import io.llmperf4j.model.TokenCounter;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/** Forks on this machine: each with a new client (a fresh connection pool), closed after the fork. */
public final class ClientForks implements ForkRunner {

    private final Supplier<? extends LlmClient> clients;
    private final TokenCounter tokenCounter;
    private final Object lock = new Object();
    private boolean stopped;      // guarded by lock
    private LoadRunner current;   // guarded by lock

    /**
     * @param clients      a new client per fork
     * @param tokenCounter fills each record's client-side output token count
     */
    public ClientForks(Supplier<? extends LlmClient> clients, TokenCounter tokenCounter) {
        this.clients = Objects.requireNonNull(clients, "clients");
        this.tokenCounter = Objects.requireNonNull(tokenCounter, "tokenCounter");
    }

    @Override
    public LoadResult run(List<RequestSpec> specs, LoadSettings forkLoad, RecordListener listener) {
        try (LlmClient client = clients.get()) {
            LoadRunner runner = new LoadRunner(client, tokenCounter);
            synchronized (lock) {
                current = runner;
                if (stopped) runner.stop();
            }
            try {
                return runner.run(specs, forkLoad, listener);
            } finally {
                synchronized (lock) {
                    current = null;
                }
            }
        }
    }

    @Override
    public void stop() {
        synchronized (lock) {
            stopped = true;
            if (current != null) current.stop();
        }
    }
}
