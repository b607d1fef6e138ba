package io.llmperf4j.engine.load;

import io.llmperf4j.engine.client.LlmClient;
import io.llmperf4j.engine.client.RequestHandle;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;
import io.llmperf4j.model.RequestRecord;
import io.llmperf4j.model.RequestSpec;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * An in-memory client: {@code answer} decides each request's outcome; null means "never answers until cancelled".
 * Answers complete synchronously inside {@code send}, which makes the runner's order deterministic.
 */
final class FakeClient implements LlmClient {

    final List<RequestSpec> sent = new CopyOnWriteArrayList<>();
    final AtomicInteger cancels = new AtomicInteger();
    private final Function<RequestSpec, Failure> answer;
    private final Predicate<RequestSpec> answers;
    private final AtomicInteger ids = new AtomicInteger();

    private FakeClient(Function<RequestSpec, Failure> answer, Predicate<RequestSpec> answers) {
        this.answer = answer;
        this.answers = answers;
    }

    static FakeClient succeeding() {
        return new FakeClient(spec -> null, spec -> true);
    }

    static FakeClient answering(Function<RequestSpec, Failure> failureOrNull) {
        return new FakeClient(failureOrNull, spec -> true);
    }

    static FakeClient neverAnswering() {
        return new FakeClient(spec -> null, spec -> false);
    }

    /** Succeeds at once, except for the specs {@code silent} selects: those wait until cancelled. */
    static FakeClient silentFor(Predicate<RequestSpec> silent) {
        return new FakeClient(spec -> null, silent.negate());
    }

    @Override
    public RequestHandle send(RequestSpec spec) {
        sent.add(spec);
        String id = "fake-" + ids.incrementAndGet();
        CompletableFuture<RequestRecord> future = new CompletableFuture<>();
        if (answers.test(spec)) future.complete(record(spec, id, answer.apply(spec), "text of " + spec.index()));
        return new RequestHandle() {
            @Override
            public String clientRequestId() {
                return id;
            }

            @Override
            public CompletableFuture<RequestRecord> completion() {
                return future.copy();
            }

            @Override
            public void cancel() {
                cancels.incrementAndGet();
                future.complete(record(spec, id, new Failure(FailureKind.CANCELLED, -1, "cancelled"), "partial"));
            }
        };
    }

    static RequestRecord record(RequestSpec spec, String id, Failure failure, String text) {
        return new RequestRecord(spec.index(), id, null, 0, 1, 2, 3, 1, new long[] {1}, text,
                spec.numberInputTokens(), spec.maxTokens(), -1, null, null, "stop", failure);
    }

    @Override
    public void close() {
    }
}
