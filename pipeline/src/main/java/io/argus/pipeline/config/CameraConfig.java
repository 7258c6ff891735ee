package io.argus.pipeline.config;

import io.argus.tracking.SceneRules;
import io.argus.pipeline.video.DecoderMode;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One camera: where to read it and which model looks at it.
 *
 * @param source    the parsed, checked URL (its {@link CameraUrl#redacted()} form is the only one ever shown)
 * @param model     id of the model its frames go to
 * @param loop      file cameras: start again at the end
 * @param realtime  file cameras: pace frames at the file's frame rate (a live camera's behaviour: a slow detector
 *                  drops frames); false analyses the file whole, as fast as the detector takes its frames, none dropped
 * @param decoder   auto | cpu | nvdec: who decodes (docs/pipeline.md "Decoders")
 * @param decodeDevice the GPU NVDEC decodes on, one of the model's; -1: chosen (the model's GPU, or of several the
 *                  one decoding the fewest of its cameras: {@link io.argus.pipeline.video.NvdecPlacement})
 * @param scene     zones, lines and the anchor point (docs/tracking.md); REST changes are kept apart (events/)
 * @param record    whether and how long its stream is recorded (docs/recording.md)
 */
public record CameraConfig(String id, CameraUrl source, String model, boolean loop, boolean realtime,
                           DecoderMode decoder, int decodeDevice, SceneRules scene, Record record) {
    /**
     * {@code record:} of a camera. mode: off; continuous (every packet, in segments); events (only around the camera's
     * events); motion (only around motion in its pictures). retainDays: segments older than this are deleted (0: kept
     * until a byte budget needs the room); maxBytes: this camera's budget (0: none); preRollSeconds, postRollSeconds:
     * how much before an event's start (or motion's) and after its end is recorded (events, motion) and in its clip;
     * motionThreshold: grey levels a point of the picture must change by; motionArea: percent of the picture that must
     * change for motion; storage: the name of the directory its segments go to (recording.storage; docs/recording.md).
     */
    public record Record(String mode, int retainDays, long maxBytes, int preRollSeconds, int postRollSeconds,
                         int motionThreshold, double motionArea, String storage) {
        public static final Record OFF = new Record("off", 0, 0, 5, 5, 25, 0.5, ArgusConfig.Recording.MAIN_STORAGE);

        public boolean on() { return !mode.equals("off"); }

        static Record read(ConfigNode n) {
            String mode = n.oneOf("mode", "off", "off", "continuous", "events", "motion");
            int days = n.integer("retainDays", 7, 0, 36_500);
            long bytes = n.longValue("maxBytes", 0, 0, Long.MAX_VALUE);
            int pre = n.integer("preRollSeconds", 5, 0, 300);
            int post = n.integer("postRollSeconds", 5, 0, 300);
            int threshold = n.integer("motionThreshold", 25, 1, 255);
            double area = n.number("motionArea", 0.5, 0.01, 100);
            String storage = n.string("storage", ArgusConfig.Recording.MAIN_STORAGE);   // checked against recording.storage
            n.finish();
            return new Record(mode, days, bytes, pre, post, threshold, area, storage);
        }

        JsonObject toJson() {
            return new JsonObject().put("mode", mode).put("retainDays", retainDays).put("maxBytes", maxBytes)
                    .put("preRollSeconds", preRollSeconds).put("postRollSeconds", postRollSeconds)
                    .put("motionThreshold", motionThreshold).put("motionArea", motionArea).put("storage", storage);
        }
    }

    /** Reads one camera (from the config file or a REST body); {@code models}: the known model ids, first = default. */
    public static CameraConfig read(ConfigNode n, List<String> models) {
        String id = n.requiredString("id");
        // a camera id names files (scenes/<id>.json), event-bus addresses and URL paths: a name, never a path
        if (!Names.valid(id)) throw new ConfigException(n.key("id"), Names.expectation(Names.MAX) + ", found " + Names.quoted(id));
        String url = n.requiredString("url");
        String transport = n.oneOf("transport", "tcp", "tcp", "udp");
        boolean loop = n.bool("loop", true);
        boolean realtime = n.bool("realtime", true);
        DecoderMode decoder = DecoderMode.parse(n.oneOf("decoder", "auto", "auto", "cpu", "nvdec"));
        int decodeDevice = n.integer("decodeDevice", -1, 0, CudaSections.MAX_DEVICE);
        String model = n.string("model", models.isEmpty() ? null : models.get(0));
        if (model == null || !models.contains(model)) {
            throw new ConfigException(n.key("model"), "unknown model \"" + model + "\" (models: " + String.join(", ", models) + ")");
        }
        CameraUrl source;
        try {
            source = CameraUrl.parse(url, transport, n.baseDir());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(n.key("url"), e.getMessage());
        }
        SceneRules scene = SceneRulesJson.read(n, n.json());
        Record record = Record.read(n.child("record"));
        n.finish();
        return new CameraConfig(id, source, model, loop, realtime, decoder, decodeDevice, scene, record);
    }

    /**
     * A camera from a REST request body (or another node's camera list); relative file paths resolve against
     * {@code baseDir}. A file camera from there must be a regular file ({@link CameraUrl#requireFromNetwork}).
     */
    public static CameraConfig fromJson(JsonObject body, List<String> models, Path baseDir) {
        CameraConfig c = read(new ConfigNode("", body, Map.of(), new java.util.HashSet<>(), baseDir), models);
        try {
            c.source().requireFromNetwork();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("url", e.getMessage());
        }
        return c;
    }

    public JsonObject toJson() {
        JsonObject j = new JsonObject().put("id", id).put("url", source.redacted()).put("kind", source.kind().name().toLowerCase(java.util.Locale.ROOT))
                .put("model", model).put("loop", loop).put("realtime", realtime)
                .put("transport", source.transport()).put("decoder", decoder.configName())
                .put("zones", SceneRulesJson.zonesJson(scene.zones())).put("lines", SceneRulesJson.linesJson(scene.lines())).put("anchor", scene.anchor().configName())
                .put("record", record.toJson());
        if (decodeDevice >= 0) j.put("decodeDevice", decodeDevice);
        return j;
    }

    /**
     * Everything needed to run this camera on another node ({@link #fromJson} reads it back), credentials included:
     * for the cluster's camera list only, never shown (see {@link #toJson}).
     */
    public JsonObject definition() {
        JsonObject j = new JsonObject().put("id", id).put("url", source.address()).put("model", model).put("loop", loop)
                .put("realtime", realtime).put("decoder", decoder.configName())
                .put("zones", SceneRulesJson.zonesJson(scene.zones())).put("lines", SceneRulesJson.linesJson(scene.lines())).put("anchor", scene.anchor().configName())
                .put("record", record.toJson());
        if (source.transport() != null) j.put("transport", source.transport());
        if (decodeDevice >= 0) j.put("decodeDevice", decodeDevice);
        return j;
    }

    /**
     * A camera's {@code decodeDevice} must be one of its model's GPUs: an NVDEC picture can only be detected on the
     * GPU that decoded it.
     */
    static void checkDecodeDevices(List<CameraConfig> cameras, java.util.function.Function<String, ModelConfig> models) {
        for (int i = 0; i < cameras.size(); i++) {
            CameraConfig c = cameras.get(i);
            ModelConfig m = models.apply(c.model());
            if (c.decodeDevice() >= 0 && !m.cudaDevices().includes(c.decodeDevice())) {
                throw new ConfigException("cameras[" + i + "].decodeDevice", "expected one of model \"" + m.id()
                        + "\"'s GPUs (cuda devices " + m.cudaDevices().describe() + "), found " + c.decodeDevice());
            }
        }
    }

    static void checkUnique(List<CameraConfig> cameras) {
        Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < cameras.size(); i++) {
            if (!seen.add(cameras.get(i).id())) {
                throw new ConfigException("cameras[" + i + "].id", "duplicate camera id \"" + cameras.get(i).id() + "\"");
            }
        }
    }
}
