package io.argus.pipeline.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.argus.pipeline.base.Addresses.RulesChanged;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * The clustered notice that a deleted camera's zones and lines go ({@code argus.scenes.forgotten}) names a camera whose
 * rules file every node deletes: its camera must be a name, never a path, or the notice is ignored.
 */
@Budget(seconds = 5)
class ForgottenRulesNoticeTest {
    @Test
    void onlyACameraNameIsTaken() {
        assertEquals("gate-1", RulesChanged.from(new JsonObject().put("camera", "gate-1")).camera());
        for (Object hostile : new Object[] {"../registry", "/etc/passwd", "a/b", ".hidden", "", "x".repeat(65), 7,
                null}) {
            assertThrows(IllegalArgumentException.class,
                    () -> RulesChanged.from(new JsonObject().put("camera", hostile)), String.valueOf(hostile));
        }
        assertThrows(IllegalArgumentException.class, () -> RulesChanged.from("not an object"));
        assertThrows(IllegalArgumentException.class, () -> RulesChanged.from(null));
    }
}
