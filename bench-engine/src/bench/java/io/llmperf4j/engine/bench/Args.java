package io.llmperf4j.engine.bench;

import java.util.HashMap;
import java.util.Map;

/** {@code key=value} arguments of the self-benchmarks. */
final class Args {

    private Args() {
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 0) throw new IllegalArgumentException("argument '" + arg + "' is not key=value");
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        return a;
    }
}
