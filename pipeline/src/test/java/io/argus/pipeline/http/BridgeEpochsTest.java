package io.argus.pipeline.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The SockJS bridge drops a former owner's late detections per connection, as the WebSocket gateway does. */
@Budget(seconds = 5)
class BridgeEpochsTest {
    private static JsonObject frame(String camera, long epoch, String node) {
        return new JsonObject().put("type", "rec").put("address", "argus.detections." + camera)
                .put("body", new JsonObject().put("type", "detections").put("cameraId", camera).put("epoch", epoch).put("node", node));
    }

    @Test
    void aStaleEpochIsDroppedPerConnectionAndEverythingElsePasses() {
        BridgeEpochs epochs = new BridgeEpochs(60_000);
        assertTrue(epochs.deliver("s1", frame("cam", 1, "a")));
        assertTrue(epochs.deliver("s1", frame("cam", 2, "b")), "the new owner");
        assertFalse(epochs.deliver("s1", frame("cam", 1, "a")), "the former owner's late message");
        assertTrue(epochs.deliver("s1", frame("cam", 2, "b")));
        assertTrue(epochs.deliver("s1", frame("other", 1, "a")), "another camera has its own epochs");
        assertTrue(epochs.deliver("s2", frame("cam", 1, "a")), "another connection that has not seen epoch 2");
        assertTrue(epochs.deliver("s1", new JsonObject().put("type", "rec").put("body", "text")), "not a JSON body");
        assertTrue(epochs.deliver("s1", new JsonObject().put("type", "rec").put("body", new JsonObject().put("cameraId", "cam"))),
                "no epoch: a single node");
        assertTrue(epochs.deliver("s1", null));
        assertEquals(2, epochs.sockets());
        epochs.closed("s1");
        epochs.closed("s2");
        assertEquals(0, epochs.sockets(), "closed connections are forgotten");
    }
}
