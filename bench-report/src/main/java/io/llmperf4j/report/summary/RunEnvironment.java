package io.llmperf4j.report.summary;

/**
 * The client machine a run was measured on, as the guides ask every report to state.
 *
 * @param jvmName             {@code java.vm.name}
 * @param jvmVendor           {@code java.vm.vendor}
 * @param jvmVersion          {@code java.runtime.version} (falls back to {@code java.version})
 * @param osName              {@code os.name}
 * @param osVersion           {@code os.version}
 * @param osArch              {@code os.arch}
 * @param availableProcessors {@code Runtime.availableProcessors()}
 */
public record RunEnvironment(
        String jvmName,
        String jvmVendor,
        String jvmVersion,
        String osName,
        String osVersion,
        String osArch,
        int availableProcessors) {

    /** The environment of this JVM. */
    public static RunEnvironment current() {
        return new RunEnvironment(
                System.getProperty("java.vm.name", "unknown"),
                System.getProperty("java.vm.vendor", "unknown"),
                System.getProperty("java.runtime.version", System.getProperty("java.version", "unknown")),
                System.getProperty("os.name", "unknown"),
                System.getProperty("os.version", "unknown"),
                System.getProperty("os.arch", "unknown"),
                Runtime.getRuntime().availableProcessors());
    }
}
