package io.argus.pipeline.base;

import java.util.Locale;

/**
 * Which picture of an event's best snapshot is asked for: the snapshot with the object's box drawn
 * ({@code /api/events/:id/snapshot.jpg}), the same without the box ({@code ?box=false}), or the object cropped out
 * ({@code /api/events/:id/crop.jpg}). In base: the REST routes, the events verticle and a node asking another all
 * name it.
 */
public enum EventPicture {
    SNAPSHOT, CLEAN, CROP;

    /** As it travels between nodes: "snapshot", "clean", "crop". */
    public String jsonName() { return name().toLowerCase(Locale.ROOT); }

    /** The picture named {@code name}, else an {@link IllegalArgumentException} naming what is expected. */
    public static EventPicture parse(String name) {
        for (EventPicture p : values()) if (p.jsonName().equals(name)) return p;
        throw new IllegalArgumentException("picture: expected snapshot, clean or crop, found \"" + name + "\"");
    }
}
