package io.llmperf4j.run;

import io.llmperf4j.engine.client.EndpointUrls;
import io.llmperf4j.engine.client.Secret;
import io.llmperf4j.engine.client.impl.FailureMessages;
import io.llmperf4j.engine.client.impl.Redactor;
import io.llmperf4j.model.Failure;
import io.llmperf4j.model.FailureKind;

import java.net.URI;
import java.util.Map;

/**
 * A redirect (3xx) answering a request before the run. The run's client follows none (a POST's body and key would
 * go elsewhere unseen), so every request of the run would fail with it: the base URL is the wrong one. The engine's
 * failure already names the redacted Location and the base it belongs to; these sentences put the server in front.
 */
final class Redirects {
    private Redirects() {
    }

    /** Whether {@code failure} is an HTTP 3xx answer. */
    static boolean is(Failure failure) {
        return failure != null && failure.kind() == FailureKind.HTTP_STATUS && failure.code() >= 300
                && failure.code() < 400;
    }

    /**
     * "the server at host:port answered the pre-run request with HTTP 308 redirect to URL (the client does not
     * follow redirects: point OPENAI_API_BASE at BASE)", from the engine's failure of that request.
     *
     * @param request what the request was, e.g. "the pre-run request"
     */
    static String problem(URI requested, String request, Failure failure) {
        return "the server at " + hostAndPort(requested) + " answered " + request + " with " + failure.message();
    }

    /**
     * The same words for an answer read by another client (doctor's GET of the model list): its Location redacted
     * as the engine redacts one ({@link Redactor#location}).
     *
     * @param location     the Location header, null when the answer had none
     * @param suffix       what the API appends to the base ("models"), to name the base to use
     * @param baseVariable the variable to set, e.g. OPENAI_API_BASE
     */
    static String problem(URI requested, int status, String location, String apiKey, Map<String, String> headers,
                          String suffix, String baseVariable) {
        String target = location == null || location.isBlank() ? null
                : new Redactor(Secret.of(apiKey), headers).location(requested, location);
        String base = target == null ? null : EndpointUrls.baseOf(target, suffix);
        return "the server at " + hostAndPort(requested) + " answered GET " + requested.getRawPath() + " with "
                + FailureMessages.redirect(status, target, baseVariable, base);
    }

    private static String hostAndPort(URI uri) {
        return uri.getHost() + ":" + (uri.getPort() > 0 ? uri.getPort()
                : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80);
    }
}
