package io.llmperf4j.distributed;

import java.util.List;
import java.util.Objects;

/**
 * How a process joins a load cluster: its name, the members to contact, and the address to bind.
 *
 * @param clusterName members join only a cluster of the same name
 * @param members     addresses of other members (TCP/IP join; multicast and auto-detection stay off); empty for
 *                    the first member, which waits for the others to contact it
 * @param bind        the address cluster traffic binds to and is announced at, or null for Hazelcast's choice
 *                    (every interface, the first free port from {@value #DEFAULT_PORT})
 */
public record ClusterSettings(String clusterName, List<HostPort> members, HostPort bind) {
    /** Hazelcast's port; a member without a port in {@code --bind} takes the first free one from here. */
    public static final int DEFAULT_PORT = 5701;
    /** How many ports from the base a member tries (several members on one host). */
    public static final int PORT_COUNT = 20;

    public ClusterSettings {
        Objects.requireNonNull(clusterName, "clusterName");
        if (clusterName.isBlank()) throw new IllegalArgumentException("the cluster name is empty");
        members = List.copyOf(members);
    }
}
