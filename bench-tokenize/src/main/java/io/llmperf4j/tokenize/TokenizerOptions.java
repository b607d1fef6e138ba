package io.llmperf4j.tokenize;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * How {@link Tokenizers#resolve(String, TokenizerOptions)} may load a tokenizer.
 *
 * @param allowDownload        whether a HuggingFace model id missing from the local cache may be fetched from the hub
 *                             (through DJL, which stores it in the HuggingFace cache); off by default: a benchmark
 *                             should not depend on the network
 * @param huggingFaceHubCache  the HuggingFace hub cache folder (holding {@code models--ORG--NAME}), or {@code null}
 *                             for the one HuggingFace's own tools use ({@link #hubCache()})
 */
public record TokenizerOptions(boolean allowDownload, Path huggingFaceHubCache) {

    /** No download; the HuggingFace cache found from the environment. */
    public static TokenizerOptions defaults() {
        return new TokenizerOptions(false, null);
    }

    public TokenizerOptions withAllowDownload(boolean allow) {
        return new TokenizerOptions(allow, huggingFaceHubCache);
    }

    public TokenizerOptions withHuggingFaceHubCache(Path folder) {
        return new TokenizerOptions(allowDownload, folder);
    }

    /**
     * The hub cache folder: {@link #huggingFaceHubCache} when set, else as {@code huggingface_hub} finds it:
     * {@code $HF_HUB_CACHE}, {@code $HUGGINGFACE_HUB_CACHE}, {@code $HF_HOME/hub},
     * {@code $XDG_CACHE_HOME/huggingface/hub}, {@code ~/.cache/huggingface/hub}.
     */
    public Path hubCache() {
        if (huggingFaceHubCache != null) return huggingFaceHubCache;
        return hubCacheFromEnvironment(System.getenv(), Path.of(System.getProperty("user.home")));
    }

    static Path hubCacheFromEnvironment(Map<String, String> env, Path home) {
        Objects.requireNonNull(home, "home");
        for (String variable : new String[] {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"}) {
            String value = env.get(variable);
            if (value != null && !value.isBlank()) return Path.of(expandHome(value, home));
        }
        String hfHome = env.get("HF_HOME");
        if (hfHome != null && !hfHome.isBlank()) return Path.of(expandHome(hfHome, home), "hub");
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) return Path.of(expandHome(xdg, home), "huggingface", "hub");
        return home.resolve(".cache").resolve("huggingface").resolve("hub");
    }

    private static String expandHome(String path, Path home) {
        return path.equals("~") || path.startsWith("~/") ? home + path.substring(1) : path;
    }
}
