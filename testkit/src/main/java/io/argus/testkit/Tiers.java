package io.argus.testkit;

/**
 * The test tiers, as JUnit tags. Untagged tests are the unit and component tier ({@code mvn test}, surefire): plain
 * code, one in-process app at most, seconds each. {@link #SYSTEM} tests (several processes, real servers, network
 * faults, a browser, load) run in {@code mvn verify} through failsafe, after the unit tier has passed. Long runs (soaks,
 * fuzz campaigns, benchmarks) are scripts, never tests. System tests run two classes at a time unless tagged {@link #ALONE}. A system test that must last long to mean anything (a link down
 * for a minute) is also tagged {@link #LONG}: it leaves the system tier for {@code scripts/long-faults.sh}.
 */
public final class Tiers {
    private Tiers() {}

    /** Several processes, real servers (RTSP, MQTT, a browser), network namespaces or load: failsafe's tier. */
    public static final String SYSTEM = "system";

    /**
     * A system test whose fault lasts a minute or more: out of the test command's system tier (which must stay within
     * its budget), run by {@code scripts/long-faults.sh}, with its last result in docs/testing.md.
     */
    public static final String LONG = "long";

    /**
     * A system test whose measured times are its subject (a failover within N ms, a recovery bound, a rate under load)
     * or that puts load of its own on the machine: it runs by itself, after the other system tests, which run two
     * classes at a time (they mostly wait on processes, servers and timers). Its bounds come from loaded runs, but a
     * neighbour of its own tier would add a second, unmeasured load.
     */
    public static final String ALONE = "alone";
}
