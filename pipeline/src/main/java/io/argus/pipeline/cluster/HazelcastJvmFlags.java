package io.argus.pipeline.cluster;

import java.util.List;

/**
 * The JVM flags Hazelcast asks for on Java 17+ ("Running in Modular Java" in its docs): access to JDK internals it
 * uses for its fast paths (direct buffers, NIO selectors, OS metrics). Without them it warns at start and falls back to
 * slower paths. {@code bin/argus} passes the same list (a test keeps the two equal); the cluster benchmark passes it to
 * the nodes it starts. {@code --add-modules java.se} of Hazelcast's example is left out: the release's jlink'ed runtime
 * carries only the modules Argus needs.
 */
public final class HazelcastJvmFlags {
    private HazelcastJvmFlags() {}

    public static final List<String> LIST = List.of(
            "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.management/sun.management=ALL-UNNAMED",
            "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED");
}
