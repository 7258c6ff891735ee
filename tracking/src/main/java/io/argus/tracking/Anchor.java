package io.argus.tracking;

import io.argus.detector.Box;

/**
 * The point of a box that stands for the object in zones and on lines. Bottom centre by default (as DeepStream and
 * Frigate do): where a person or a car touches the ground, so a zone drawn on the floor holds the objects standing on
 * it, whatever their height.
 */
public enum Anchor {
    BOTTOM_CENTER("bottom_center"),
    CENTER("center"),
    TOP_CENTER("top_center");

    private final String configName;

    Anchor(String configName) { this.configName = configName; }

    /** The name in YAML and JSON: {@code bottom_center}, {@code center}, {@code top_center}. */
    public String configName() { return configName; }

    public Point of(Box box) {
        double x = box.x() + box.w() / 2.0;
        return switch (this) {
            case BOTTOM_CENTER -> new Point(x, box.y() + (double) box.h());
            case CENTER -> new Point(x, box.y() + box.h() / 2.0);
            case TOP_CENTER -> new Point(x, box.y());
        };
    }

    /** The anchor called {@code name} (its config name), or null when there is none. */
    public static Anchor byName(String name) {
        for (Anchor a : values()) if (a.configName.equals(name)) return a;
        return null;
    }

    /** The config names, for error messages. */
    public static String names() {
        StringBuilder sb = new StringBuilder();
        for (Anchor a : values()) sb.append(sb.isEmpty() ? "" : ", ").append(a.configName);
        return sb.toString();
    }
}
