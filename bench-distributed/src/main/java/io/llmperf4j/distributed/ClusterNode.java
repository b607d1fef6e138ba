package io.llmperf4j.distributed;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

import java.net.BindException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Starts this process's Hazelcast member of a load cluster. Everything that would reach beyond the addresses given
 * is off: phone-home, multicast, auto-detection (cloud discovery). Hazelcast's own shutdown hook is off too: the
 * owner shuts the member down. Failure detection is tightened so a worker that dies is noticed within seconds.
 */
public final class ClusterNode {
    /** Member attribute that tells workers from coordinators. */
    public static final String ROLE = "llmperf4j.role";
    public static final String WORKER = "worker";
    public static final String COORDINATOR = "coordinator";
    /** The executor every task of a distributed run goes through. */
    public static final String EXECUTOR = "llmperf4j";
    /** A member that sent no heartbeat for this long is removed (Hazelcast's default is 60 s). */
    static final int MAX_NO_HEARTBEAT_SECONDS = 10;
    /** How often a member alone (or in a smaller cluster) looks for the others at its addresses again. */
    static final int MERGE_DELAY_SECONDS = 3;
    /**
     * How long a worker keeps an address it was not given: an address a member of another cluster answered with, and
     * a member that left. Hazelcast looks for another cluster from master to master: a member that is not its
     * cluster's master answers with the master's address, which the looking side tries at its next look, 3 s later,
     * if it still holds it. Workers need that: two workers up before a coordinator that names them both each formed a
     * cluster of their own, the coordinator joined the first one's (not as its master), and the other, naming only
     * the coordinator, found the first worker through that answer; with 0 s the answer was dropped before the next
     * look and the coordinator waited for "1 joined". 30 s outlasts a look slowed by dead addresses (5 s each) on a
     * busy machine. The cost: for as long, a worker that is its cluster's master also looks at a member that left,
     * which can hold that worker's own shutdown 3 s.
     *
     * <p>The coordinator keeps none (Hazelcast's default is 4 h): it never merges into a cluster of workers (they hold
     * no data), so it needs no such answer, and a lost worker is out of its run for good (one that comes back finds
     * the cluster through its own --member). The master's look at a dead address blocks its shutdown for 3 s
     * (Hazelcast waits 5 s for a connection that cannot come, and its shutdown 3 s for that wait), which the
     * coordinator's user sat through at the end of a run that lost a worker.
     */
    static final int WORKER_ADDRESS_RETENTION_SECONDS = 30;

    private ClusterNode() {
    }

    /**
     * Starts a member with {@code role}; {@code services} become its user context, where tasks sent to it find
     * the objects they call.
     */
    public static HazelcastInstance start(ClusterSettings settings, String role, Map<String, Object> services) {
        return start(settings, role, services, BuildIdentity.current(), null);
    }

    /**
     * As {@link #start(ClusterSettings, String, Map)}, announcing {@code build} (tests give another build's) and
     * with {@code buildCheck}, when not null, told of every member from before the join on.
     */
    static HazelcastInstance start(ClusterSettings settings, String role, Map<String, Object> services,
                                   BuildIdentity build, BuildCheck buildCheck) {
        quietLogging();
        Config config = config(settings, role, services);
        config.getMemberAttributeConfig().setAttribute(BuildIdentity.VERSION_ATTRIBUTE, build.version());
        config.getMemberAttributeConfig().setAttribute(BuildIdentity.WIRE_ATTRIBUTE, build.wire());
        if (buildCheck != null) config.addListenerConfig(new ListenerConfig(buildCheck));
        try {
            return Hazelcast.newHazelcastInstance(config);
        } catch (RuntimeException e) {
            if (!causedByBind(e)) throw e;
            NetworkConfig network = config.getNetworkConfig();
            String where = settings.bind() == null
                    ? "ports " + network.getPort() + "-" + (network.getPort() + network.getPortCount() - 1)
                    : "port " + settings.bind().host() + ":" + network.getPort();
            // Hazelcast's own message names neither --bind nor what to do; its stack trace stays behind --debug
            throw new IllegalStateException("cannot bind the cluster " + where + ": it is in use (another member or "
                    + "program; pick a free port with --bind)", e);
        }
    }

    private static boolean causedByBind(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) return true;
        }
        return false;
    }

    /** The Hazelcast configuration of a member (public for tests). */
    public static Config config(ClusterSettings settings, String role, Map<String, Object> services) {
        Config config = new Config();
        config.setClusterName(settings.clusterName());
        config.setInstanceName("llmperf4j-" + role + "-" + UUID.randomUUID());
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        config.setProperty("hazelcast.max.no.heartbeat.seconds", Integer.toString(MAX_NO_HEARTBEAT_SECONDS));
        config.setProperty("hazelcast.wait.seconds.before.join", "1");
        // a member that found nobody at its addresses forms a cluster of its own; it looks for the others again
        // every few seconds and merges with them (Hazelcast's split-brain merge, after 300 s by default), so workers
        // started before their coordinator, or a coordinator naming several lone workers, end in one cluster
        config.setProperty("hazelcast.merge.first.run.delay.seconds", Integer.toString(MERGE_DELAY_SECONDS));
        config.setProperty("hazelcast.merge.next.run.delay.seconds", Integer.toString(MERGE_DELAY_SECONDS));
        config.setProperty("hazelcast.tcp.join.previously.joined.member.address.retention.seconds",
                Integer.toString(WORKER.equals(role) ? WORKER_ADDRESS_RETENTION_SECONDS : 0));
        config.setProperty("hazelcast.partition.count", "71"); // no data lives in the cluster: few partitions
        // nothing to migrate on the way out: a graceful shutdown must not wait for members that leave too
        config.setProperty("hazelcast.graceful.shutdown.max.wait", "5");
        config.getMetricsConfig().setEnabled(false);
        config.getJetConfig().setEnabled(false);
        config.getMemberAttributeConfig().setAttribute(ROLE, role);
        // workers hold no data (lite members): a cluster of workers alone, left by their coordinator, is then the
        // smaller side of any split-brain check against a coordinator (Hazelcast merges by data members, and only
        // the smaller side's master acts), so their master, looking at their --member address every few seconds,
        // joins them to the next coordinator there. As data members the two workers outnumbered a new coordinator,
        // which knew no worker address to look at, and it waited for workers that never came
        config.setLiteMember(WORKER.equals(role));
        config.setUserContext(new ConcurrentHashMap<>(services));

        NetworkConfig network = config.getNetworkConfig();
        HostPort bind = settings.bind();
        boolean fixedPort = bind != null && bind.port() != 0;
        network.setPort(fixedPort ? bind.port() : ClusterSettings.DEFAULT_PORT);
        network.setPortAutoIncrement(!fixedPort);
        network.setPortCount(ClusterSettings.PORT_COUNT);
        if (bind != null) {
            config.setProperty("hazelcast.socket.bind.any", "false");
            network.getInterfaces().setEnabled(true).addInterface(ipOf(bind.host()));
            network.setPublicAddress(bind.toString());
        }

        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        List<String> members = new ArrayList<>();
        for (HostPort m : settings.members()) members.add(m.toString());
        if (members.isEmpty()) members.add(bind == null ? "127.0.0.1" : bind.host());
        join.getTcpIpConfig().setEnabled(true).setMembers(members);
        return config;
    }

    /** The readable id of a member: its address, {@code host:port}. */
    public static String idOf(Member member) {
        return member.getAddress().getHost() + ":" + member.getAddress().getPort();
    }

    public static boolean isWorker(Member member) {
        return WORKER.equals(member.getAttribute(ROLE));
    }

    private static String ipOf(String host) {
        try {
            return InetAddress.getByName(host).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("cannot resolve the bind address '" + host + "'");
        }
    }

    /**
     * Hazelcast logs through {@link HazelcastLogGate}: nothing by default, its WARN lines through slf4j with
     * {@code --debug} (its INFO lines would drown the run's own output even then). A class named on the command line
     * ({@code -Dhazelcast.logging.class=...}) still wins.
     */
    private static void quietLogging() {
        if (System.getProperty("hazelcast.logging.class") == null) {
            // also for the lines logged before the config is read
            System.setProperty("hazelcast.logging.class", HazelcastLogGate.class.getName());
        }
        if (System.getProperty("hazelcast.logging.type") == null) {
            System.setProperty("hazelcast.logging.type", "slf4j");
        }
        if (System.getProperty("org.slf4j.simpleLogger.log.com.hazelcast") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.com.hazelcast", "warn");
        }
    }
}
