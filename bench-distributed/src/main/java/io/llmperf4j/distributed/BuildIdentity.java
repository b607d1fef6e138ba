package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;

import java.util.Objects;

/**
 * Which build of llmperf4j a cluster member runs: its version and the fingerprint of the messages it sends and
 * reads ({@link WireFormat}). Two members pair only when both are equal: a worker of another build would read a job
 * with fields missing as empty (the JSON ignores unknown ones) or fail deep in a task, so it is refused up front, in
 * one line on each side. Each member announces its own as member attributes, which Hazelcast carries whatever the
 * builds.
 *
 * @param version the build's version (the jar manifest's; "dev" when run from classes)
 * @param wire    the fingerprint of its messages; {@link #UNKNOWN} for a member that announces none
 */
public record BuildIdentity(String version, String wire) {
    static final String VERSION_ATTRIBUTE = "llmperf4j.version";
    static final String WIRE_ATTRIBUTE = "llmperf4j.wire";
    /** A member of a build from before the version check: it announces nothing. */
    static final String UNKNOWN = "unknown";
    private static final BuildIdentity CURRENT = new BuildIdentity(versionOfThisBuild(), WireFormat.fingerprint());

    public BuildIdentity {
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(wire, "wire");
    }

    /** This process's build. */
    public static BuildIdentity current() {
        return CURRENT;
    }

    /** What {@code member} announced. */
    static BuildIdentity of(Member member) {
        String version = member.getAttribute(VERSION_ATTRIBUTE);
        String wire = member.getAttribute(WIRE_ATTRIBUTE);
        return new BuildIdentity(version == null ? UNKNOWN : version, wire == null ? UNKNOWN : wire);
    }

    /** "llmperf4j 0.1.0 (wire 1a2b3c4d)", or the words for a build that announces nothing. */
    public String describe() {
        if (UNKNOWN.equals(version)) return "an llmperf4j build older than the version check";
        return "llmperf4j " + version + " (wire " + wire + ")";
    }

    private static String versionOfThisBuild() {
        String version = BuildIdentity.class.getPackage().getImplementationVersion();
        return version == null ? "dev" : version;
    }
}
