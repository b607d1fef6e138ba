package io.llmperf4j.distributed;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;

import java.io.Serial;
import java.io.Serializable;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Runs on a worker before the start: one request of one output token through the client the worker would build for
 * a share (its own key, one connection), handed to the {@link LoadWorker} of that process; returns the
 * {@link RequestCheck} as JSON.
 */
final class RequestProbe implements Callable<String>, Serializable, HazelcastInstanceAware {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String clientJson;
    private final String prompt;
    private final long waitMillis;
    private transient HazelcastInstance instance;

    RequestProbe(ClientSpec client, String prompt, Duration wait) {
        this.clientJson = Wire.write(client);
        this.prompt = prompt;
        this.waitMillis = wait.toMillis();
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance hazelcastInstance) {
        this.instance = hazelcastInstance;
    }

    @Override
    public String call() {
        return Wire.write(LoadWorker.of(instance).checkRequest(Wire.read(clientJson, ClientSpec.class), prompt,
                Duration.ofMillis(waitMillis)));
    }
}
