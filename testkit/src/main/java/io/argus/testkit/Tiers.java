package io.argus.testkit;

/**
 * The test tiers, as JUnit tags. Untagged tests are the unit and component tier ({@code mvn test}, surefire): plain
 * code, one in-process app at most, seconds each. {@link #SYSTEM} tests (several processes, real servers, network
 * faults, a browser, load) run in {@code mvn verify} through failsafe, after the unit tier has passed. Long runs (soaks,
 * fuzz campaigns, benchmarks) are scripts, never tests.
 */
public final class Tiers {
    private Tiers() {}

    /** Several processes, real servers (RTSP, MQTT, a browser), network namespaces or load: failsafe's tier. */
    public static final String SYSTEM = "system";
}
