package io.argus.pipeline.e2e;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;

/**
 * Mouse and keyboard input to a page over the DevTools protocol ({@code Input.dispatchMouseEvent}, {@code
 * Input.insertText}), as a user gives it: the page sees trusted pointer, mouse and click events at viewport
 * coordinates, hit-tested like real ones, so a test drives the page's own UI rather than its functions.
 */
final class PageInput {
    private final DashboardTest.Cdp cdp;

    PageInput(DashboardTest.Cdp cdp) { this.cdp = cdp; }

    /** Viewport coordinates (CSS pixels). */
    record Point(double x, double y) {}

    /** Scrolls the first element matching {@code selector} into the middle of the view; its centre then. */
    Point centreOf(String selector) throws InterruptedException {
        String json = cdp.eval("""
                (() => { const el = document.querySelector(%s);
                  if (!el) return '';
                  el.scrollIntoView({block: 'center', inline: 'center'});
                  const r = el.getBoundingClientRect();
                  return JSON.stringify({x: r.left + r.width / 2, y: r.top + r.height / 2}); })()"""
                .formatted(quoted(selector))).getString("value");
        if (json == null || json.isEmpty()) throw new AssertionError("nothing on the page matches " + selector);
        JsonObject p = new JsonObject(json);
        return new Point(p.getDouble("x"), p.getDouble("y"));
    }

    /** Clicks the centre of the first element matching {@code selector} (scrolled into view first). */
    void click(String selector) throws InterruptedException {
        click(centreOf(selector));
    }

    void click(Point p) throws InterruptedException {
        mouse("mouseMoved", p, "none", 0);
        mouse("mousePressed", p, "left", 1);
        mouse("mouseReleased", p, "left", 0);
    }

    /** Presses the left button at {@code from}, moves to {@code to} in a few steps, releases it there. */
    void drag(Point from, Point to) throws InterruptedException {
        mouse("mouseMoved", from, "none", 0);
        mouse("mousePressed", from, "left", 1);
        int steps = 5;
        for (int i = 1; i <= steps; i++) {
            Point p = new Point(from.x() + (to.x() - from.x()) * i / steps, from.y() + (to.y() - from.y()) * i / steps);
            mouse("mouseMoved", p, "left", 1);
        }
        mouse("mouseReleased", to, "left", 0);
    }

    /** Replaces the text of the input matching {@code selector} with {@code text}, typed as a user would after selecting it. */
    void typeInto(String selector, String text) throws InterruptedException {
        click(selector);
        cdp.eval("document.querySelector(%s).select()".formatted(quoted(selector)));
        cdp.call("Input.insertText", new JsonObject().put("text", text));
    }

    /** buttons: the buttons held during the event (1: the left one), as the DOM's MouseEvent.buttons. */
    private void mouse(String type, Point p, String button, int buttons) throws InterruptedException {
        JsonObject event = new JsonObject().put("type", type).put("x", p.x()).put("y", p.y()).put("button", button)
                .put("buttons", buttons);
        if (!type.equals("mouseMoved")) event.put("clickCount", 1);
        cdp.call("Input.dispatchMouseEvent", event);
    }

    /** A JavaScript string literal of {@code s}. */
    static String quoted(String s) { return Json.encode(s); }
}
