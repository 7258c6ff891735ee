package io.argus.tracking;

/**
 * One counter of a camera, for one class: either the objects inside a zone now ({@code zone}, {@code inside}), or the
 * crossings of a line since the camera started ({@code line}, {@code in}, {@code out}). The other fields are null / 0.
 */
public record SceneCount(String zone, String line, String className, int inside, int in, int out) {

    public static SceneCount ofZone(String zone, String className, int inside) {
        return new SceneCount(zone, null, className, inside, 0, 0);
    }

    public static SceneCount ofLine(String line, String className, int in, int out) {
        return new SceneCount(null, line, className, 0, in, out);
    }

    public boolean isZone() { return zone != null; }

    /** The zone's or the line's id. */
    public String ruleId() { return isZone() ? zone : line; }
}
