package io.llmperf4j.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * {@link RealEngineContract} against llama.cpp's own OpenAI-compatible server ({@value #IMAGE}) in a container,
 * with the generated model in a mounted folder: the same assertions as against the in-JVM engine. Skipped where
 * no Docker engine runs. Run it alone with
 * {@code mvn -B -ntp -pl cli -am verify -Dtest=LlamaCppServerContainerTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
@Testcontainers(disabledWithoutDocker = true)
class LlamaCppServerContainerTest extends RealEngineContract {
    static final String IMAGE = "ghcr.io/ggml-org/llama.cpp:server";
    private static final int PORT = 8080;

    private static GenericContainer<?> server;

    @BeforeAll
    static void startServer() throws IOException {
        Path model = writeModel();
        server = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withFileSystemBind(model.toAbsolutePath().getParent().toString(), "/models", BindMode.READ_ONLY)
                // one sequence on one thread, as in the JVM; -n caps a request without max_tokens at 256 tokens
                .withCommand("--model", "/models/" + model.getFileName(), "--alias", MODEL, "--host", "0.0.0.0",
                        "--port", Integer.toString(PORT), "--ctx-size", "2048", "--threads", "1", "--parallel", "1",
                        "--n-predict", "256", "--ignore-eos")
                .withExposedPorts(PORT)
                .waitingFor(Wait.forHttp("/health").forStatusCode(200).withStartupTimeout(Duration.ofMinutes(2)));
        server.start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) server.stop();
    }

    @Override
    String baseUrl() {
        return "http://" + server.getHost() + ":" + server.getMappedPort(PORT) + "/v1";
    }

    /** llama-server renders the template with its own Jinja engine, which keeps llmperf's empty system message. */
    @Override
    OptionalInt chatTemplateTokens() {
        return OptionalInt.empty();
    }
}
