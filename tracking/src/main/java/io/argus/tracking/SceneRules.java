package io.argus.tracking;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A camera's zones and lines and the anchor point that places objects in them (YAML {@code cameras[i].zones},
 * {@code .lines}, {@code .anchor}; REST {@code /api/cameras/{id}/zones} and {@code /lines}: the pipeline reads and
 * writes them, checking every id there). Ids are unique across zones and lines of a camera: counts are published per
 * id ({@code argus/<camera>/<zone-or-line>/<class>/count}).
 */
public record SceneRules(List<Zone> zones, List<Line> lines, Anchor anchor) {
    /** The most zones a camera may have; each is looked at for every tracked object of every frame. */
    public static final int MAX_ZONES = 100;
    /** The most lines a camera may have. */
    public static final int MAX_LINES = 100;

    /** No zones, no lines. */
    public static final SceneRules NONE = new SceneRules(List.of(), List.of(), Anchor.BOTTOM_CENTER);

    public SceneRules {
        zones = List.copyOf(zones);
        lines = List.copyOf(lines);
        Objects.requireNonNull(anchor, "anchor");
        if (zones.size() > MAX_ZONES) throw new IllegalArgumentException("expected at most " + MAX_ZONES + " zones, found " + zones.size());
        if (lines.size() > MAX_LINES) throw new IllegalArgumentException("expected at most " + MAX_LINES + " lines, found " + lines.size());
        int[] twice = repeatedId(zones, lines);
        if (twice != null) {
            throw new IllegalArgumentException("expected an id no other zone or line of this camera has, found \""
                    + idAt(zones, lines, twice[1]) + "\" twice");
        }
    }

    /**
     * The first id used a second time among the zones and then the lines: the positions of its first and second use,
     * counting the zones first and then the lines (position {@code zones.size() + i} is {@code lines[i]}); null when
     * every id is unique.
     */
    public static int[] repeatedId(List<Zone> zones, List<Line> lines) {
        Map<String, Integer> first = new HashMap<>();
        for (int i = 0; i < zones.size() + lines.size(); i++) {
            Integer earlier = first.putIfAbsent(idAt(zones, lines, i), i);
            if (earlier != null) return new int[] {earlier, i};
        }
        return null;
    }

    private static String idAt(List<Zone> zones, List<Line> lines, int position) {
        return position < zones.size() ? zones.get(position).id() : lines.get(position - zones.size()).id();
    }

    /**
     * A zone's or line's id is given and not blank. Which names are allowed (they are published in MQTT topics and
     * Prometheus labels) is the pipeline's rule, checked where rules come in: the configuration and REST bodies.
     */
    static void checkId(String id) {
        Objects.requireNonNull(id, "id");
        if (id.isBlank()) throw new IllegalArgumentException("id: expected a name, found \"" + id + "\"");
    }

    public SceneRules withZones(List<Zone> newZones) { return new SceneRules(newZones, lines, anchor); }

    public SceneRules withLines(List<Line> newLines) { return new SceneRules(zones, newLines, anchor); }

    public SceneRules withAnchor(Anchor newAnchor) { return new SceneRules(zones, lines, newAnchor); }

    public Optional<Zone> zone(String id) { return zones.stream().filter(z -> z.id().equals(id)).findFirst(); }

    public Optional<Line> line(String id) { return lines.stream().filter(l -> l.id().equals(id)).findFirst(); }
}
