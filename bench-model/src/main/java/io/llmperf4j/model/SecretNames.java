package io.llmperf4j.model;

import java.util.regex.Pattern;

/**
 * Names that say their value is a secret: query parameters and metadata keys such as "key", "api_key", "x-api-key",
 * "token", "sig", ..., "code" (Azure Functions' function key, {@code ?code=}), and the credentials of signed URLs and
 * single sign-on ("jwt", "session", "ticket", "SAMLResponse", CloudFront's "Policy"). One list for the client's error
 * messages and the result files alike.
 */
public final class SecretNames {

    private static final Pattern SECRET_NAME = Pattern.compile(
            "(?i)(?:.*[_.-])?(?:key|apikey|token|access_token|secret|password|passwd|pwd|sig|signature|auth"
                    + "|authorization|credential|credentials|code|jwt|session|sessionid|ticket|samlresponse|policy)");

    private SecretNames() {
    }

    /** True when {@code name} suggests a secret value; false for null. */
    public static boolean matches(String name) {
        return name != null && SECRET_NAME.matcher(name).matches();
    }
}
