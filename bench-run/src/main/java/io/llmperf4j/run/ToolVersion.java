package io.llmperf4j.run;

/** This tool's version, from the jar manifest (set by the build); "dev" when run from classes. */
public final class ToolVersion {
    private ToolVersion() {
    }

    public static String version() {
        String version = ToolVersion.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
