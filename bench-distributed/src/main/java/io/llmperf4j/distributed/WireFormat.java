package io.llmperf4j.distributed;

import io.llmperf4j.engine.load.ScheduledRecord;
import io.llmperf4j.model.RequestSpec;

import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The fingerprint of the messages members exchange: the tasks (Java-serialized by Hazelcast) and the JSON they carry
 * ({@link Wire}), taken from the classes themselves, so any change to a field of a message, or of a type inside one,
 * gives another fingerprint without anyone remembering to bump a number. Two builds of the same version with
 * different messages (snapshots) are told apart this way.
 */
final class WireFormat {
    /** Every class that crosses the cluster itself; what they hold is followed from here. */
    private static final List<Class<?>> MESSAGES = List.of(ClockProbe.class, ReachabilityProbe.class,
            RequestProbe.class, RequestCheck.class, RunShare.class, WorkerJob.class, WorkerOutcome.class,
            StartShare.class, StopShare.class, ShareReady.class, DeliverRecord.class, ScheduledRecord.class,
            DeliverSends.class, SentRequests.class, DeliverLeaving.class, DeliverHeaderWait.class, TakePrompts.class, RequestSpec.class);
    private static final String PROJECT_PACKAGE = "io.llmperf4j.";

    private WireFormat() {
    }

    /** Eight hex digits of a SHA-256 over the messages' shapes. */
    static String fingerprint() {
        TreeMap<String, String> shapes = new TreeMap<>();
        for (Class<?> type : MESSAGES) describe(type, shapes);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256")
                    .digest(shapes.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** Adds the shape of {@code type}, and of the project's types it holds, to {@code shapes}, by class name. */
    private static void describe(Class<?> type, TreeMap<String, String> shapes) {
        if (!type.getName().startsWith(PROJECT_PACKAGE) || shapes.containsKey(type.getName())) return;
        shapes.put(type.getName(), ""); // a type that holds itself stops here
        Set<String> members = new TreeSet<>();
        List<Type> held = new ArrayList<>();
        if (type.isEnum()) {
            for (Object constant : type.getEnumConstants()) members.add(((Enum<?>) constant).name());
        } else if (type.isRecord()) {
            for (RecordComponent c : type.getRecordComponents()) {
                members.add(c.getName() + ":" + c.getGenericType().getTypeName());
                held.add(c.getGenericType());
            }
        } else {
            for (Class<?> t = type; t != null && t.getName().startsWith(PROJECT_PACKAGE); t = t.getSuperclass()) {
                for (Field f : t.getDeclaredFields()) {
                    int m = f.getModifiers();
                    if (Modifier.isStatic(m) || Modifier.isTransient(m)) continue;
                    members.add(t.getSimpleName() + "." + f.getName() + ":" + f.getGenericType().getTypeName());
                    held.add(f.getGenericType());
                }
            }
            // a sealed interface (a warmup, say) travels as one of its kinds
            if (type.isSealed()) held.addAll(Arrays.asList(type.getPermittedSubclasses()));
        }
        shapes.put(type.getName(), String.join(",", members));
        for (Type t : held) follow(t, shapes);
    }

    private static void follow(Type type, TreeMap<String, String> shapes) {
        if (type instanceof Class<?> c) {
            describe(c.isArray() ? c.getComponentType() : c, shapes);
        } else if (type instanceof ParameterizedType p) {
            follow(p.getRawType(), shapes);
            for (Type argument : p.getActualTypeArguments()) follow(argument, shapes);
        } else if (type instanceof GenericArrayType a) {
            follow(a.getGenericComponentType(), shapes);
        }
    }
}
