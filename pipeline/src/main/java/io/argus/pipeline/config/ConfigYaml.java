package io.argus.pipeline.config;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes noted values ({@link ConfigOrigins}) back as YAML, each value followed by a comment saying where it came
 * from: {@code argus config show}. Sections nest by key path; a list of sections ({@code cameras[0]...}) becomes a
 * YAML list; values are written as JSON (quoted text, numbers, booleans, flow lists), which YAML reads as the same.
 */
public final class ConfigYaml {
    private static final Pattern SEGMENT = Pattern.compile("([^.\\[]+)((?:\\[\\d+])*)");
    private static final Pattern INDEX = Pattern.compile("\\[(\\d+)]");

    private ConfigYaml() {}

    /** The entries as YAML, in the order they were read. */
    public static String render(List<ConfigOrigins.Entry> entries) {
        Map<String, Object> root = new LinkedHashMap<>();
        for (ConfigOrigins.Entry e : entries) place(root, e);
        StringBuilder out = new StringBuilder();
        section(root, "", "", out);
        return out.toString();
    }

    /** Puts {@code e} at its key path, making the sections and list items on the way. */
    @SuppressWarnings("unchecked")
    private static void place(Map<String, Object> root, ConfigOrigins.Entry e) {
        Map<String, Object> node = root;
        String[] parts = e.key().split("\\.");
        for (int p = 0; p < parts.length; p++) {
            Matcher m = SEGMENT.matcher(parts[p]);
            if (!m.matches()) return;
            String name = m.group(1);
            List<Integer> indices = new java.util.ArrayList<>();
            Matcher i = INDEX.matcher(m.group(2));
            while (i.find()) indices.add(Integer.parseInt(i.group(1)));
            boolean last = p == parts.length - 1;
            if (last && indices.isEmpty()) {
                node.put(name, e);
                return;
            }
            if (indices.isEmpty()) {
                Object child = node.computeIfAbsent(name, k -> new LinkedHashMap<String, Object>());
                if (!(child instanceof Map)) return;
                node = (Map<String, Object>) child;
            } else {
                Object list = node.computeIfAbsent(name, k -> new TreeMap<Integer, Map<String, Object>>());
                if (!(list instanceof TreeMap)) return;
                node = ((TreeMap<Integer, Map<String, Object>>) list).computeIfAbsent(indices.getFirst(), k -> new LinkedHashMap<>());
                if (last) return;
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void section(Map<String, Object> node, String pad, String firstPad, StringBuilder out) {
        boolean first = true;
        for (Map.Entry<String, Object> e : node.entrySet()) {
            String p = first ? firstPad : pad;
            first = false;
            if (e.getValue() instanceof ConfigOrigins.Entry leaf) {
                out.append(p).append(e.getKey()).append(": ").append(scalar(leaf.value()))
                        .append("   # ").append(leaf.origin().describe()).append('\n');
            } else if (e.getValue() instanceof TreeMap<?, ?> list) {
                out.append(p).append(e.getKey()).append(":\n");
                for (Object item : list.values()) section((Map<String, Object>) item, pad + "    ", pad + "  - ", out);
            } else {
                out.append(p).append(e.getKey()).append(":\n");
                section((Map<String, Object>) e.getValue(), pad + "  ", pad + "  ", out);
            }
        }
    }

    private static String scalar(Object v) {
        if (v == null) return "null";
        if (v instanceof List<?> l) return new JsonArray(new java.util.ArrayList<>(l)).encode();
        if (v instanceof JsonArray || v instanceof JsonObject || v instanceof Number || v instanceof Boolean) return Json.encode(v);
        return Json.encode(v.toString());
    }
}
