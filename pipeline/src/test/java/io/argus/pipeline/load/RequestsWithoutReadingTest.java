package io.argus.pipeline.load;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A WebSocket client that sends requests (subscribe messages, each answered) and never reads the answers: the server
 * must stop reading it once its write queue is full (TCP then pushes back on the client), not queue answers without
 * bound. Before ClientSession paused the socket (2026-11-25), the server read 200,000 requests in under 4 s and kept
 * every answer in the socket's outbound buffer; now the client's writes stop after what the kernel's buffers hold.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 25)
class RequestsWithoutReadingTest {
    @Test
    void aClientThatSendsButNeverReadsIsNoLongerRead() throws Exception {
        JsonObject json = TestConfig.base();
        json.getJsonObject("http").put("token", "requests-without-reading");
        json.put("websocket", new JsonObject().put("writeQueueBytes", 16 * 1024));
        try (RunningApp app = new RunningApp(TestConfig.read(json));
             RawWsClient c = RawWsClient.connect(app.port(), "/ws", app.token(), 4096)) {
            int total = 500_000;
            AtomicInteger sent = new AtomicInteger();
            Thread writer = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < total; i++) {
                        c.sendText("{\"type\":\"subscribe\",\"cameras\":[\"c" + (i % 10) + "\"]}");
                        sent.incrementAndGet();
                    }
                } catch (java.io.IOException e) {
                    // closed at the end
                }
            });
            writer.join(10_000);
            int afterTen = sent.get();
            writer.join(2_000);
            int afterTwelve = sent.get();
            System.out.println("requests written by a client that never reads: " + afterTen + " in 10 s, " + afterTwelve
                    + " in 12 s, of " + total);
            assertTrue(afterTwelve < total && afterTwelve == afterTen, "the server kept reading a client that takes none of its answers");
            c.close();
        }
    }
}
