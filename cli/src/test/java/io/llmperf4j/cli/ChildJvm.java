package io.llmperf4j.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command that starts llmperf4j in a JVM of its own, for the tests whose subject is the process (its signals,
 * its exit code, a lock another process holds, a load worker). Its JVM runs with the surefire forks' flags
 * (cli/pom.xml's argLine): C1 alone and the serial collector, since these short runs' numbers are no assertion's
 * subject and the machine's two cores are shared with the forks; and the test class path with a class-data-sharing
 * archive ({@link ChildJvmClassPath}).
 */
final class ChildJvm {
    private ChildJvm() {
    }

    /** {@code java <flags> -cp <the test class path> io.llmperf4j.cli.Main <args>}, a list the caller may extend. */
    static List<String> command(String... args) {
        return command(List.of(), args);
    }

    /** As {@link #command(String...)}, with JVM options of the caller's own (a worker's heap) before the class path. */
    static List<String> command(List<String> jvmOptions, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        command.addAll(jvmOptions);
        command.addAll(ChildJvmClassPath.options());
        command.add(Main.class.getName());
        command.addAll(List.of(args));
        return command;
    }
}
