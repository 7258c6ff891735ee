package io.argus.pipeline.e2e;

import static io.argus.testkit.Waits.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.pipeline.http.DashboardAddress;
import io.argus.pipeline.testing.RunningApp;
import io.argus.pipeline.testing.TestConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.testkit.Tiers;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secure by default, in a real browser: the demo model on a server listening on every interface with no token
 * configured. Without the token the dashboard says how to get in; the link printed at the first start logs the
 * browser in (an HttpOnly cookie, the token gone from the address bar), and boxes are drawn over the snapshots: the
 * cookie authorises the REST calls, the snapshot images and the WebSocket.
 */
@Tag(Tiers.SYSTEM)
@Budget(seconds = 10)
class TokenDashboardTest {
    @TempDir
    Path cache;

    @Test
    void theLinkPrintedAtTheFirstStartOpensTheDashboardWithBoxes() throws Exception {
        assumeTrue(Browser.available(), "needs Debian's chromium");
        JsonObject json = TestConfig.demo();
        json.getJsonObject("http").put("host", "0.0.0.0");
        json.put("cacheDir", cache.toString());
        json.getJsonArray("cameras").add(TestConfig.camera("cam", TestMedia.shapes(5).toString()));
        try (RunningApp app = new RunningApp(TestConfig.read(json))) {
            DashboardAddress dashboard = app.app.dashboard();
            String printed = dashboard.startLines().get(0);
            String link = dashboard.urlWithToken();
            assertTrue(printed.startsWith("argus: dashboard " + link + " "), printed);
            assertTrue(link.contains("?token=" + app.token()), link);

            try (Browser browser = Browser.open(app.client, dashboard.url())) {
                String message = browser.waitFor("document.getElementById('access').hidden ? '' : document.getElementById('access').textContent",
                        30, "the message that a token is needed");
                assertTrue(message.contains("argus token show"), message);

                browser.cdp.call("Page.navigate", new JsonObject().put("url", link));
                String boxes = "document.querySelectorAll('.tile[data-camera=\"cam\"] svg rect.box').length";
                waitFor(() -> browser.cdp.eval(boxes).getInteger("value", 0) > 0, 90_000, 250,
                        "boxes drawn on the dashboard");
                assertEquals(dashboard.url(), browser.cdp.eval("location.href").getString("value"), "the token left the address bar");
                assertEquals("live", browser.cdp.eval("document.getElementById('connection').textContent").getString("value"),
                        "the WebSocket is open");
                assertTrue(browser.cdp.eval("document.getElementById('access').hidden").getBoolean("value"));
                assertFalse(browser.cdp.eval("document.cookie").getString("value").contains(app.token()),
                        "the cookie is HttpOnly: page scripts cannot read the token");
                assertTrue(browser.cdp.eval("document.querySelector('.tile[data-camera=\"cam\"] img').naturalWidth")
                        .getInteger("value") > 0, "the snapshot image loaded with the cookie");
                browser.screenshot("dashboard-token.png");
            }
        }
    }
}
