package io.llmperf4j.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the jar manifest (set by the build), with the JVM it runs on. */
final class VersionProvider implements IVersionProvider {
    static String version() {
        String version = Main.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "llmperf4j " + version(),
            "JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
        };
    }
}
