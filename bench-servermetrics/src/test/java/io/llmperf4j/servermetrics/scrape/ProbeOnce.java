package io.llmperf4j.servermetrics.scrape;

import java.net.URI;
import java.util.Set;
import java.util.TreeSet;

/**
 * A child JVM's whole life for {@link HttpScrapeFootprintTest}: one probe of an http endpoint, then the names of
 * the threads it left behind. Prints the probe's detail, then one line per new thread.
 */
public final class ProbeOnce {

    private ProbeOnce() {
    }

    public static void main(String[] args) {
        Set<String> before = threadNames();
        ProbeResult r = MetricsProbe.probe(ServerMetricsConfig.forEndpoint(URI.create(args[0]), "sk-child"));
        System.out.println((r.ok() ? "ok: " : "failed: ") + r.detail());
        Set<String> after = threadNames();
        after.removeAll(before);
        for (String name : after) System.out.println("new thread: " + name);
    }

    private static Set<String> threadNames() {
        Set<String> names = new TreeSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) names.add(t.getName());
        return names;
    }
}
