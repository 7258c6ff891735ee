package io.argus.pipeline.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * The line of each key of a YAML file, by key path as {@link ConfigNode} names keys ({@code http.port},
 * {@code cameras[1].url}): where {@code argus config show} says a value came from. Read with SnakeYAML's node tree
 * (the parser Vert.x Config reads the file with), which keeps each node's position.
 */
public final class YamlLines {
    private YamlLines() {}

    /** The lines of {@code file}'s keys, 1-based; empty when the file cannot be read (its values still show, lineless). */
    public static Map<String, Integer> of(Path file) {
        Map<String, Integer> out = new HashMap<>();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            Node root = new Yaml(new LoaderOptions()).compose(r);
            if (root != null) walk(root, "", out);
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return out;
    }

    private static void walk(Node node, String path, Map<String, Integer> out) {
        if (node instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (!(t.getKeyNode() instanceof ScalarNode k)) continue;
                String key = path.isEmpty() ? k.getValue() : path + "." + k.getValue();
                out.put(key, k.getStartMark().getLine() + 1);
                walk(t.getValueNode(), key, out);
            }
        } else if (node instanceof SequenceNode s) {
            for (int i = 0; i < s.getValue().size(); i++) {
                Node item = s.getValue().get(i);
                String key = path + "[" + i + "]";
                out.put(key, item.getStartMark().getLine() + 1);
                walk(item, key, out);
            }
        }
    }
}
