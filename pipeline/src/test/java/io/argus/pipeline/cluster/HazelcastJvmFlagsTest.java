package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** bin/argus passes Hazelcast's JVM flags, the same list the cluster benchmark gives its nodes. */
@Budget(seconds = 5)
class HazelcastJvmFlagsTest {
    @Test
    void binArgusPassesTheSameFlags() throws Exception {
        String script = Files.readString(TestMedia.home().resolve("bin/argus"));
        Matcher m = Pattern.compile("HAZELCAST_FLAGS=\"([^\"]*)\"").matcher(script);
        if (!m.find()) throw new AssertionError("bin/argus sets no HAZELCAST_FLAGS");
        List<String> flags = Arrays.stream(m.group(1).replace("\\\n", " ").trim().split("\\s+")).toList();
        assertEquals(HazelcastJvmFlags.LIST, flags);
        assertEquals(true, script.contains("$HAZELCAST_FLAGS"), "bin/argus passes $HAZELCAST_FLAGS to java");
    }
}
