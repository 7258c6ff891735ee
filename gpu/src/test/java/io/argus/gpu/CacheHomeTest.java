package io.argus.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

@Budget(seconds = 5)
class CacheHomeTest {
    @Test
    void argusCacheDirThenXdgThenHome() {
        assertEquals(Path.of("/data/argus-cache"),
                CacheHome.of(Map.of("ARGUS_CACHE_DIR", "/data/argus-cache", "XDG_CACHE_HOME", "/xdg"), "/home/u"));
        assertEquals(Path.of("/xdg/argus"), CacheHome.of(Map.of("XDG_CACHE_HOME", "/xdg", "ARGUS_CACHE_DIR", " "), "/home/u"));
        assertEquals(Path.of("/home/u/.cache/argus"), CacheHome.of(Map.of(), "/home/u"));
    }
}
