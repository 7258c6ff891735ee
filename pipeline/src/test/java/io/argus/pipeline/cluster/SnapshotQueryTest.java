package io.argus.pipeline.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.base.EventPicture;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/**
 * What another node asks for a picture is read back field by field: a well-formed query comes back whole (the event's
 * picture included, "snapshot" when not named), and hostile ones are refused with the field named.
 */
@Budget(seconds = 5)
class SnapshotQueryTest {
    @Test
    void aQueryTravelsWholeAndAnEventPictureDefaultsToTheSnapshot() {
        SnapshotQuery crop = SnapshotQuery.event("cam", "cam-17-1763884800123", EventPicture.CROP);
        assertEquals(crop, SnapshotQuery.from(crop.toJson()));
        assertEquals(EventPicture.SNAPSHOT, SnapshotQuery.from(new JsonObject().put("camera", "cam")
                .put("event", "cam-17-1763884800123")).picture());
        assertEquals(SnapshotQuery.frame("cam", 12), SnapshotQuery.from(SnapshotQuery.frame("cam", 12).toJson()));
    }

    @Test
    void hostileQueriesAreRefusedNamingTheField() {
        String event = "cam-17-1763884800123";
        refused(new JsonObject().put("camera", "cam").put("event", event).put("picture", "../../etc/passwd"), "picture");
        refused(new JsonObject().put("camera", "cam").put("event", event).put("picture", 7), "picture");
        refused(new JsonObject().put("camera", "cam").put("picture", "crop"), "picture");
        refused(new JsonObject().put("camera", "other").put("event", event), "event id");
        refused(new JsonObject().put("camera", "../cam").put("frame", 1), "camera id");
        refused(new JsonObject().put("camera", "cam").put("frame", -1), "frame");
        refused(new JsonObject().put("camera", "cam").put("frame", 1).put("event", event), "frame");
        assertThrows(IllegalArgumentException.class, () -> SnapshotQuery.from("a string"));
    }

    private static void refused(JsonObject body, String field) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SnapshotQuery.from(body), body.encode());
        assertTrue(e.getMessage().startsWith(field), e.getMessage());
    }
}
