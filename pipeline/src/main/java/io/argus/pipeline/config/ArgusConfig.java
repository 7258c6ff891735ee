package io.argus.pipeline.config;

import io.argus.tracking.TrackerSettings;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The whole, checked configuration of {@code argus run} (see docs/pipeline.md for every key). Built from the YAML
 * file's JSON with environment overrides; any problem is a {@link ConfigException} naming the key.
 */
public record ArgusConfig(Path file, Http http, List<ModelConfig> models, List<CameraConfig> cameras,
                          CameraSettings camera, WebSocketSettings websocket, SnapshotSettings snapshots,
                          Path cacheDir, TrainingConfig training, ClusterConfig cluster, Tracking tracking,
                          EventSettings events, MqttSettings mqtt, Recording recording, List<String> unusedEnv,
                          List<String> warnings) {

    /**
     * Where and how cameras with {@code record:} on are recorded (docs/recording.md). dir: the main storage directory
     * (its segments and index.sqlite, and the detection log, clips and exports); segmentSeconds: a segment's length
     * (cut at the next keyframe after it); queueBytes: per camera, what may wait for the disk before packets are
     * dropped (counted), and what a pre-roll may hold; maxBytes: the directory's budget (0: none); keepFreeBytes: the
     * oldest segments go while the disk has less free; warnFreeBytes: below this the status and /ready say the disk is
     * filling. storage: further directories, each with its own name and budgets, that cameras choose with
     * {@code record.storage} (the main one is {@value #MAIN_STORAGE}).
     */
    public record Recording(Path dir, int segmentSeconds, long queueBytes, long maxBytes, long keepFreeBytes,
                            long warnFreeBytes, List<Storage> more) {
        public static final String MAIN_STORAGE = "main";
        /** Directories at most, the main one included: each has an index open and a retention round. */
        public static final int MAX_STORAGES = 16;

        /** One storage directory: where its segments go and what it may hold. */
        public record Storage(String name, Path dir, long maxBytes, long keepFreeBytes, long warnFreeBytes) {}

        /** Every storage directory, the main one first. */
        public List<Storage> storages() {
            List<Storage> all = new ArrayList<>();
            all.add(new Storage(MAIN_STORAGE, dir, maxBytes, keepFreeBytes, warnFreeBytes));
            all.addAll(more);
            return all;
        }

        static Recording read(ConfigNode n, Path cache) {
            Path dir = n.path("dir", cache.resolve("recordings"), false);
            int segment = n.integer("segmentSeconds", 10, 2, 3600);
            long queue = n.longValue("queueBytes", 64L << 20, 1L << 20, 4L << 30);
            long[] budgets = budgets(n);
            List<Storage> more = new ArrayList<>();
            List<Path> dirs = new ArrayList<>(List.of(dir.toAbsolutePath().normalize()));
            List<String> names = new ArrayList<>(List.of(MAIN_STORAGE));
            List<ConfigNode> listed = n.list("storage");
            if (listed.size() + 1 > MAX_STORAGES) {
                throw new ConfigException(n.key("storage"), "at most " + (MAX_STORAGES - 1) + " more directories, found " + listed.size());
            }
            for (ConfigNode s : listed) {
                String name = s.requiredString("name");
                if (!Names.valid(name)) throw new ConfigException(s.key("name"), Names.expectation(Names.MAX) + ", found " + Names.quoted(name));
                if (names.contains(name)) throw new ConfigException(s.key("name"), "duplicate storage name " + Names.quoted(name));
                Path d = s.path("dir", null, false);
                if (d == null) throw new ConfigException(s.key("dir"), "a directory is needed");
                Path abs = d.toAbsolutePath().normalize();
                for (int i = 0; i < dirs.size(); i++) {
                    // one directory inside another: the outer one's recovery would read the inner one's files as its own
                    if (abs.startsWith(dirs.get(i)) || dirs.get(i).startsWith(abs)) {
                        throw new ConfigException(s.key("dir"), "must not be, contain or lie inside the directory of storage "
                                + Names.quoted(names.get(i)) + " (" + dirs.get(i) + "), found " + abs);
                    }
                }
                long[] b = budgets(s);
                s.finish();
                more.add(new Storage(name, d, b[0], b[1], b[2]));
                dirs.add(abs);
                names.add(name);
            }
            n.finish();
            return new Recording(dir, segment, queue, budgets[0], budgets[1], budgets[2], List.copyOf(more));
        }

        /** maxBytes, keepFreeBytes, warnFreeBytes of a directory, checked. */
        private static long[] budgets(ConfigNode n) {
            long max = n.longValue("maxBytes", 0, 0, Long.MAX_VALUE);
            long keepFree = n.longValue("keepFreeBytes", 1L << 30, 0, Long.MAX_VALUE);
            long warnFree = n.longValue("warnFreeBytes", 5L << 30, 0, Long.MAX_VALUE);
            if (warnFree < keepFree) {
                throw new ConfigException(n.key("warnFreeBytes"), "must be >= keepFreeBytes (" + keepFree + "), found " + warnFree);
            }
            return new long[]{max, keepFree, warnFree};
        }

        /** Each camera's {@code record.storage} is one of the directories. */
        void checkCameras(List<CameraConfig> cameras) {
            List<String> names = storages().stream().map(Storage::name).toList();
            for (int i = 0; i < cameras.size(); i++) {
                String s = cameras.get(i).record().storage();
                if (!names.contains(s)) {
                    throw new ConfigException("cameras[" + i + "].record.storage", "expected one of " + String.join(", ", names)
                            + " (recording.storage), found " + Names.quoted(s));
                }
            }
        }
    }

    /**
     * The {@code tracking:} section: whether cameras are tracked (every detection message then carries its track) and
     * the tracker's knobs (docs/tracking.md; ByteTrack's defaults).
     */
    public record Tracking(boolean enabled, TrackerSettings tracker) {
        static Tracking read(ConfigNode n) {
            boolean enabled = n.bool("enabled", true);
            TrackerSettings d = TrackerSettings.DEFAULTS;
            double high = n.number("highThreshold", d.highThreshold(), 0, 1);
            double low = n.number("lowThreshold", d.lowThreshold(), 0, 1);
            if (low > high) throw new ConfigException(n.key("lowThreshold"), "must be <= highThreshold (" + high + "), found " + low);
            double newTrack = n.number("newTrackThreshold", d.newTrackThreshold(), 0, 1);
            double match = n.number("matchThreshold", d.matchThreshold(), 0, 1);
            int buffer = n.integer("trackBuffer", d.trackBuffer(), 0, 100_000);
            int exitBuffer = n.integer("exitBuffer", d.exitBuffer(), 0, 100_000);
            boolean perClass = n.bool("perClass", d.perClass());
            n.finish();
            return new Tracking(enabled, new TrackerSettings(high, low, newTrack, match, buffer, exitBuffer, perClass));
        }
    }

    /**
     * HTTP server; {@code token} null when the API is open. sendBufferBytes: the kernel send buffer of each
     * connection (0: the OS default, which autotunes up to megabytes): with writeQueueBytes it bounds what a
     * WebSocket client that stops reading can hold. allowedOrigins: web origins ({@code scheme://host[:port]}, as
     * normalised by {@link WebOrigin}) besides the server's own whose pages may change things and open WebSockets (a
     * reverse proxy's address, say); allowedHosts: host names besides loopback ones an open server answers to (lower
     * case). See docs/pipeline.md "Access".
     */
    public record Http(String host, int port, String token, int sendBufferBytes, List<String> allowedOrigins,
                       List<String> allowedHosts, Limits limits) {
        /** With no allowed origins or hosts besides the server's own and the default limits. */
        public Http(String host, int port, String token, int sendBufferBytes) {
            this(host, port, token, sendBufferBytes, List.of(), List.of(), Limits.DEFAULTS);
        }

        static Http read(ConfigNode n) {
            String host = n.string("host", "0.0.0.0");
            int port = n.integer("port", 8080, 0, 65535);
            String token = n.string("token", null);
            String weakness = token == null || token.isBlank() ? null : TokenStrength.weakness(token);
            if (weakness != null) throw new ConfigException(n.key("token"), weakness + TokenStrength.CONFIGURED_FIX);
            int sendBuffer = n.integer("sendBufferBytes", 0, 0, 64 * 1024 * 1024);
            List<String> origins = new ArrayList<>();
            List<String> given = n.strings("allowedOrigins");
            for (int i = 0; i < given.size(); i++) {
                try {
                    origins.add(WebOrigin.parse(given.get(i)).toString());
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(n.key("allowedOrigins") + "[" + i + "]", e.getMessage());
                }
            }
            List<String> hosts = new ArrayList<>();
            List<String> names = n.strings("allowedHosts");
            for (int i = 0; i < names.size(); i++) {
                try {
                    hosts.add(WebOrigin.hostName(names.get(i)));
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(n.key("allowedHosts") + "[" + i + "]", e.getMessage());
                }
            }
            Limits limits = Limits.read(n);
            n.finish();
            return new Http(host, port, token == null || token.isBlank() ? null : token, sendBuffer, List.copyOf(origins),
                    List.copyOf(hosts), limits);
        }
    }

    /**
     * What one client may hold of the HTTP server. requestHeadTimeoutMs: a connection must finish each request's head
     * (its request line and headers) this long after it opened or after its previous answer, or it is closed (so also
     * the keep-alive time); idleTimeoutMs: a connection with nothing read or written for this long is closed (a stalled
     * upload, say; WebSockets are pinged more often); maxConnections: connections at once, more are closed at once;
     * maxBridgeSessions and maxBridgeSessionsPerAddress: SockJS sessions at once, in all and per client address.
     */
    public record Limits(int requestHeadTimeoutMs, int idleTimeoutMs, int maxConnections, int maxBridgeSessions,
                         int maxBridgeSessionsPerAddress) {
        public static final Limits DEFAULTS = new Limits(10_000, 120_000, 10_000, 1_000, 32);

        static Limits read(ConfigNode n) {
            Limits d = DEFAULTS;
            int head = n.integer("requestHeadTimeoutMs", d.requestHeadTimeoutMs(), 100, 600_000);
            int idle = n.integer("idleTimeoutMs", d.idleTimeoutMs(), 1_000, 24 * 3_600_000);
            int connections = n.integer("maxConnections", d.maxConnections(), 1, 1_000_000);
            int sessions = n.integer("maxBridgeSessions", d.maxBridgeSessions(), 1, 1_000_000);
            int perAddress = n.integer("maxBridgeSessionsPerAddress", d.maxBridgeSessionsPerAddress(), 1, 1_000_000);
            return new Limits(head, idle, connections, sessions, perAddress);
        }
    }

    /** Reconnect policy: exponential backoff from initialMs to maxMs, each delay spread by +-jitter (a fraction). */
    public record Reconnect(long initialMs, long maxMs, double multiplier, double jitter) {
        static Reconnect read(ConfigNode n) {
            return read(n, 500, 30_000);
        }

        /** A reconnect section with other defaults for its first and largest delays (the MQTT output's). */
        public static Reconnect read(ConfigNode n, long defaultInitialMs, long defaultMaxMs) {
            long initial = n.longValue("initialMs", defaultInitialMs, 1, 3_600_000);
            long max = n.longValue("maxMs", defaultMaxMs, 1, 3_600_000);
            if (max < initial) throw new ConfigException(n.key("maxMs"), "must be >= initialMs (" + initial + "), found " + max);
            double mult = n.number("multiplier", 2.0, 1.0, 10.0);
            double jitter = n.number("jitter", 0.2, 0.0, 1.0);
            n.finish();
            return new Reconnect(initial, max, mult, jitter);
        }
    }

    /**
     * How cameras are read. connectTimeoutMs: FFmpeg's socket timeout for connecting and reading (RTSP);
     * firstFrameTimeoutMs: a camera connected without its first picture for this long is closed and reconnected (the
     * first picture waits for a keyframe, which many cameras send only every 4-10 s, and FFmpeg drops the one it read
     * while probing the stream); stallTimeoutMs: a camera that has streamed and then goes this long without a picture
     * is closed and reconnected; poolFrames: pixel buffers per camera (frames in flight); pinnedFrames: where the
     * camera's model runs on a GPU, allocate those buffers in page-locked memory so that the GPU copies decoded frames
     * straight from them (poolFrames x a frame's bytes per camera that the OS cannot page out); decoderThreads: FFmpeg
     * decoder threads per camera (1 keeps latency low); ffmpegLogLevel: FFmpeg's own log (quiet by default: its messages may carry camera addresses).
     */
    public record CameraSettings(int connectTimeoutMs, int firstFrameTimeoutMs, int stallTimeoutMs, int poolFrames,
                                 boolean pinnedFrames, int decoderThreads, Reconnect reconnect, String ffmpegLogLevel) {
        static CameraSettings read(ConfigNode n) {
            int connect = n.integer("connectTimeoutMs", 5000, 100, 600_000);
            int firstFrame = n.integer("firstFrameTimeoutMs", 20_000, 100, 600_000);
            int stall = n.integer("stallTimeoutMs", 5000, 100, 600_000);
            int pool = n.integer("poolFrames", 6, 2, 64);
            boolean pinned = n.bool("pinnedFrames", true);
            int threads = n.integer("decoderThreads", 1, 0, 64);
            Reconnect reconnect = Reconnect.read(n.child("reconnect"));
            String log = n.oneOf("ffmpegLogLevel", "quiet", "quiet", "error", "warning", "info", "debug");
            n.finish();
            return new CameraSettings(connect, firstFrame, stall, pool, pinned, threads, reconnect, log);
        }
    }

    /**
     * WebSocket clients: each has a queue of at most bufferSize messages (the oldest go first, the client is told how
     * many); writeQueueBytes bounds what sits in the socket; a client that does not answer pings within pongTimeoutMs
     * is closed.
     */
    public record WebSocketSettings(int bufferSize, int writeQueueBytes, int pingIntervalMs, int pongTimeoutMs) {
        static WebSocketSettings read(ConfigNode n) {
            int buffer = n.integer("bufferSize", 256, 1, 100_000);
            int bytes = n.integer("writeQueueBytes", 256 * 1024, 1024, 64 * 1024 * 1024);
            int ping = n.integer("pingIntervalMs", 10_000, 50, 3_600_000);
            int pong = n.integer("pongTimeoutMs", 30_000, 100, 3_600_000);
            if (pong <= ping) throw new ConfigException(n.key("pongTimeoutMs"), "must exceed pingIntervalMs (" + ping + "), found " + pong);
            n.finish();
            return new WebSocketSettings(buffer, bytes, ping, pong);
        }
    }

    /** JPEG snapshots for the dashboard: per camera at most {@code fps} a second (0 disables), scaled to maxWidth. */
    public record SnapshotSettings(double fps, int maxWidth, int quality) {
        static SnapshotSettings read(ConfigNode n) {
            double fps = n.number("fps", 2, 0, 60);
            int width = n.integer("maxWidth", 640, 0, 8192);
            int quality = n.integer("quality", 75, 1, 100);
            n.finish();
            return new SnapshotSettings(fps, width, quality);
        }
    }

    /**
     * YAML 1.1 reads an unquoted {@code on}, {@code off}, {@code yes}, {@code no}, {@code true}, {@code false} (and
     * numbers) as values of their own type, keys included; the config's keys are words, so such a key is refused here,
     * named, instead of failing later as a cast deep in a reader (the config fuzzer's find: {@code off: 10}).
     */
    private static void requireTextKeys(Object value, String at) {
        if (value instanceof JsonObject j) value = j.getMap();
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                String here = at.isEmpty() ? String.valueOf(e.getKey()) : at + "." + e.getKey();
                if (e.getKey() == null) {
                    throw new ConfigException(here, "an empty key (or ~, YAML's null): expected a word");
                }
                if (!(e.getKey() instanceof String)) {
                    throw new ConfigException(here, "a key YAML reads as " + e.getKey().getClass().getSimpleName()
                            .toLowerCase(java.util.Locale.ROOT) + " " + e.getKey() + " (on, off, yes, no, true, false and numbers "
                            + "unquoted are not text): expected a word, quote it");
                }
                requireTextKeys(e.getValue(), here);
            }
        } else if (value instanceof io.vertx.core.json.JsonArray a) {
            for (int i = 0; i < a.size(); i++) requireTextKeys(a.getValue(i), at + "[" + i + "]");
        } else if (value instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) requireTextKeys(l.get(i), at + "[" + i + "]");
        }
    }

    /** Reads and checks everything; {@code json} is the YAML file's content, {@code env} the environment. */
    public static ArgusConfig read(Path file, JsonObject json, Map<String, String> env) {
        return read(file, json, env, null);
    }

    /** As above, noting in {@code origins} where each value came from ({@code argus config show}; null: nobody asks). */
    public static ArgusConfig read(Path file, JsonObject json, Map<String, String> env, ConfigOrigins origins) {
        requireTextKeys(json.getMap(), "");
        Set<String> used = new HashSet<>();
        Path base = file.toAbsolutePath().getParent();
        ConfigNode root = new ConfigNode("", json, env, used, base, origins);
        Http http = Http.read(root.child("http"));
        // first: every cache lives under it (the models' CPU tuning and cuDNN plans, training data, tokens, the video)
        // the default as the tools without a config take it (CacheHome); ARGUS_CACHE_DIR itself is read as cacheDir's
        // variable, which names the environment as the value's origin in `argus config show`
        Path cache = root.path("cacheDir", io.argus.gpu.CacheHome.of(env, System.getProperty("user.home")), false);
        List<ModelConfig> models = new ArrayList<>();
        for (ConfigNode m : root.list("models")) models.add(ModelConfig.read(m, cache));
        if (models.isEmpty()) throw new ConfigException("models", "at least one model is needed");
        List<String> modelIds = new ArrayList<>();
        for (int i = 0; i < models.size(); i++) {
            if (modelIds.contains(models.get(i).id())) throw new ConfigException("models[" + i + "].id", "duplicate model id \"" + models.get(i).id() + "\"");
            modelIds.add(models.get(i).id());
        }
        List<CameraConfig> cameras = new ArrayList<>();
        for (ConfigNode c : root.list("cameras")) cameras.add(CameraConfig.read(c, modelIds));
        CameraConfig.checkUnique(cameras);
        CameraConfig.checkDecodeDevices(cameras, id -> models.get(modelIds.indexOf(id)));
        CameraSettings camera = CameraSettings.read(root.child("camera"));
        WebSocketSettings ws = WebSocketSettings.read(root.child("websocket"));
        if (http.limits().idleTimeoutMs() <= ws.pingIntervalMs()) {
            // a WebSocket without detections to send must be pinged before the server gives it up as idle
            throw new ConfigException("http.idleTimeoutMs", "must exceed websocket.pingIntervalMs (" + ws.pingIntervalMs()
                    + "), found " + http.limits().idleTimeoutMs());
        }
        SnapshotSettings snapshots = SnapshotSettings.read(root.child("snapshots"));
        TrainingConfig training = TrainingConfig.read(root.child("training"), modelIds, cache);
        if (training.enabled() && models.get(modelIds.indexOf(training.model())).onnx()) {
            throw new ConfigException("training.model", "\"" + training.model() + "\" is an imported ONNX model, which "
                    + "online training cannot fine-tune (it trains Darknet models); name a Darknet model or disable training");
        }
        ClusterConfig cluster = ClusterConfig.read(root.child("cluster"));
        Tracking tracking = Tracking.read(root.child("tracking"));
        EventSettings events = EventSettings.read(root.child("events"));
        MqttSettings mqtt = MqttSettings.read(root.child("mqtt"));
        Recording recording = Recording.read(root.child("recording"), cache);
        recording.checkCameras(cameras);
        root.finish();
        Set<String> unused = new TreeSet<>();
        for (String k : env.keySet()) {
            if (k.startsWith("ARGUS_") && !used.contains(k) && !NOT_CONFIG.contains(k)) unused.add(k);
        }
        List<String> warnings = new ArrayList<>();
        String mqttOff = MqttSettings.offThoughConfigured(json.getValue("mqtt") instanceof JsonObject m ? m : new JsonObject(), env, mqtt);
        if (mqttOff != null) warnings.add(mqttOff);
        return new ArgusConfig(file, http, List.copyOf(models), List.copyOf(cameras), camera, ws, snapshots, cache,
                training, cluster, tracking, events, mqtt, recording, List.copyOf(unused), List.copyOf(warnings));
    }

    /** ARGUS_* variables that are not configuration keys. */
    static final Set<String> NOT_CONFIG = Set.of("ARGUS_HOME", "ARGUS_DEBUG", "ARGUS_JAVA_OPTS", "ARGUS_CONFIG",
            "ARGUS_SKIP_PACKAGES",   // bin/argus: start without installing config/system-packages.txt
            "ARGUS_REQUIRE_PEERS",   // tests: a missing reference peer fails instead of skipping
            "ARGUS_CUDA_VERBOSE",    // the CUDA backend's plan log (CudaLog)
            "ARGUS_KERNEL_CACHE");   // where NVRTC's compiled kernels are kept (KernelCompiler)

    /** The model called {@code id} (camera configs are checked to name a known one). */
    public ModelConfig model(String id) {
        return models.stream().filter(m -> m.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no model \"" + id + "\""));
    }

    public List<String> modelIds() { return models.stream().map(ModelConfig::id).toList(); }

    public ArgusConfig withCameras(List<CameraConfig> cams) {
        return new ArgusConfig(file, http, models, List.copyOf(cams), camera, websocket, snapshots, cacheDir, training,
                cluster, tracking, events, mqtt, recording, unusedEnv, warnings);
    }
}
