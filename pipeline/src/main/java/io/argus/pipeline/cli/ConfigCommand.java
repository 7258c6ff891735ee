package io.argus.pipeline.cli;

import io.argus.pipeline.camera.CameraOverlay;
import io.argus.pipeline.cluster.ChangeMirror;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.CameraConfig;
import io.argus.pipeline.config.ConfigLoader;
import io.argus.pipeline.config.ConfigOrigins;
import io.argus.pipeline.config.ConfigYaml;
import io.argus.pipeline.config.Names;
import io.argus.pipeline.config.YamlLines;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code argus config show}: the configuration {@code argus run} would use, as YAML, each value with where it came
 * from: its default, a line of the config file, an environment variable, or the runtime overlay (cameras added,
 * removed or paused over REST, zones and lines drawn there: docs/pipeline.md "Runtime changes"). Secrets redacted.
 * Reads only: neither the config file nor the overlay is written.
 */
@Command(name = "config", mixinStandardHelpOptions = true,
        description = {"Show the effective configuration.", "Each value with where it came from: default, file:line, environment, runtime overlay."},
        subcommands = {ConfigCommand.Show.class})
final class ConfigCommand {
    @Command(name = "show", mixinStandardHelpOptions = true,
            description = {"Print the effective configuration, with origins.",
                    "As YAML, each value annotated with where it came from.",
                    "Passwords, tokens and secrets show as <redacted>, camera addresses without credentials."})
    static final class Show implements Callable<Integer> {
        @Mixin
        TokenCommand.ConfigOption options;

        @Override
        public Integer call() throws Exception {
            System.out.print(show(ProjectPaths.config(options.config), System.getenv()));
            return 0;
        }
    }

    /** The effective configuration of {@code file} under {@code env}, as {@code config show} prints it. */
    static String show(Path file, Map<String, String> env) throws Exception {
        ConfigOrigins origins = new ConfigOrigins(file.toString(), YamlLines.of(file));
        ArgusConfig config = ConfigLoader.loadBlocking(file, env, 60, origins);
        List<String> notes = new ArrayList<>(config.warnings());
        List<ConfigOrigins.Entry> entries = origins.entries();
        if (!config.cluster().enabled()) entries = withOverlay(config, origins, notes);
        else notes.addAll(clusterChanges(config));
        StringBuilder out = new StringBuilder("# effective configuration of " + file + " (secrets redacted)\n");
        out.append(ConfigYaml.render(entries));
        for (String n : notes) out.append("# note: ").append(n).append('\n');
        return out.toString();
    }

    /**
     * A cluster node's cameras changed at run time are the cluster's (GET /api/cameras on any node); what this node's
     * copy of them says (the copy a restart of the whole cluster goes by) is listed, camera by camera.
     */
    private static List<String> clusterChanges(ArgusConfig config) {
        Path copy = ChangeMirror.file(config.cacheDir());
        List<String> said = ChangeMirror.summary(config.cacheDir(), config.cameras());
        List<String> notes = new ArrayList<>();
        notes.add("cluster.enabled: the cameras changed at run time are the cluster's (GET /api/cameras), not applied above; "
                + (said.isEmpty() ? "this node keeps no copy of such changes (" + copy + ")"
                : "this node's copy of them (" + copy + ") says:"));
        for (String s : said) notes.add("  " + s);
        return notes;
    }

    /**
     * The entries with the runtime overlay applied as {@code argus run} applies it: cameras renumbered in the order they
     * run, those removed gone (said in a note), those added with the overlay as their origin, and zones and lines drawn
     * over REST ({@code <cacheDir>/scenes/<id>.json}) in place of the file's.
     */
    private static List<ConfigOrigins.Entry> withOverlay(ArgusConfig config, ConfigOrigins origins, List<String> notes) throws Exception {
        Path overlayFile = CameraOverlay.file(config.cacheDir());
        CameraOverlay.Effective effective = CameraOverlay.read(overlayFile).effective(config.cameras(),
                body -> CameraConfig.fromJson(body, config.modelIds(), config.file().toAbsolutePath().getParent()));
        notes.addAll(effective.notes());
        List<ConfigOrigins.Entry> all = origins.entries();
        List<ConfigOrigins.Entry> out = new ArrayList<>();
        for (ConfigOrigins.Entry e : all) if (!e.key().startsWith("cameras[")) out.add(e);
        for (int j = 0; j < effective.cameras().size(); j++) {
            CameraConfig c = effective.cameras().get(j);
            String to = "cameras[" + j + "]";
            int i = config.cameras().indexOf(c);
            if (i >= 0) {
                String from = "cameras[" + i + "]";
                for (ConfigOrigins.Entry e : all) {
                    if (e.key().startsWith(from + ".")) out.add(new ConfigOrigins.Entry(to + e.key().substring(from.length()), e.value(), e.origin()));
                }
            } else {
                ConfigOrigins added = new ConfigOrigins("", Map.of());
                JsonObject shown = c.toJson();
                shown.remove("kind");
                for (String k : shown.fieldNames()) added.overlay(to + "." + k, shown.getValue(k), overlayFile.toString());
                out.addAll(added.entries());
            }
            if (effective.paused().contains(c.id())) {
                out.add(new ConfigOrigins.Entry(to + ".paused", true, new ConfigOrigins.Origin(ConfigOrigins.Kind.OVERLAY, overlayFile.toString())));
            }
            Path scene = Names.fileIn(config.cacheDir().resolve("scenes"), "camera id", c.id(), ".json");
            if (Files.isRegularFile(scene)) {
                JsonObject rules = new JsonObject(Files.readString(scene));
                for (String k : new String[]{"zones", "lines"}) {
                    ConfigOrigins.Origin o = new ConfigOrigins.Origin(ConfigOrigins.Kind.OVERLAY, scene.toString());
                    out.removeIf(e -> e.key().equals(to + "." + k));
                    out.add(new ConfigOrigins.Entry(to + "." + k, rules.getJsonArray(k), o));
                }
            }
        }
        return out;
    }
}
