package io.argus.pipeline.security;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.core.DistributedObject;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.argus.testkit.Waits;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PfxOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The attacker of the cluster tests, a process of its own with nothing of Argus's configuration: what anyone who
 * reaches the Hazelcast and event-bus ports can run (Hazelcast and Vert.x, as Argus ships them). Driven over stdin, one
 * JSON command a line, answering one JSON line each on stdout:
 * <ul>
 * <li>{@code {"op":"member","name","members":[host:port],"waitMs"}}: a Hazelcast member with that cluster name;
 *     answers whether it joined the others ({@code joined}, {@code size}); one that did not join is shut down;</li>
 * <li>{@code {"op":"client","name","address","timeoutMs"}}: a Hazelcast client; {@code connected} or {@code error};</li>
 * <li>{@code {"op":"entries","map"}}, {@code {"op":"maps"}}, {@code {"op":"put","map","key","value"}},
 *     {@code {"op":"remove","map","key"}}: on the joined member's view of the maps;</li>
 * <li>{@code {"op":"vertx","id","name","members","tls":"none"|"own"}}: a clustered Vert.x joining under that name,
 *     its event bus in plain TCP or TLS with a certificate of its own (made with keytool);</li>
 * <li>{@code {"op":"request","id","address","body","timeoutMs"}}, {@code {"op":"publish","id","address","body","count"}},
 *     {@code {"op":"listen","id","address"}}, {@code {"op":"heard","id","address"}}: event-bus traffic of that Vert.x
 *     (heard: messages received there, less its own forged ones).</li>
 * </ul>
 */
public final class RogueMember {
    private HazelcastInstance member;
    private final Map<String, Vertx> buses = new java.util.HashMap<>();
    private final Map<String, AtomicInteger> heard = new java.util.concurrent.ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err); // Hazelcast and Vert.x log to stdout/stderr; answers have stdout to themselves
        RogueMember rogue = new RogueMember();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println(new JsonObject().put("ready", true).encode());
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            JsonObject command = new JsonObject(line);
            JsonObject answer;
            try {
                answer = rogue.run(command);
            } catch (Exception e) {
                answer = new JsonObject().put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            out.println(answer.encode());
            if ("quit".equals(command.getString("op"))) break;
        }
        System.exit(0);
    }

    private JsonObject run(JsonObject c) throws Exception {
        return switch (c.getString("op")) {
            case "member" -> member(c);
            case "client" -> client(c);
            case "maps" -> {
                JsonArray names = new JsonArray();
                for (DistributedObject o : member.getDistributedObjects()) names.add(o.getServiceName() + " " + o.getName());
                yield new JsonObject().put("maps", names);
            }
            case "entries" -> {
                JsonObject entries = new JsonObject();
                IMap<Object, Object> map = member.getMap(c.getString("map"));
                for (Map.Entry<Object, Object> e : map.entrySet()) entries.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
                yield new JsonObject().put("entries", entries);
            }
            case "put" -> {
                member.getMap(c.getString("map")).put(c.getString("key"), c.getString("value"));
                yield new JsonObject().put("ok", true);
            }
            case "remove" -> {
                member.getMap(c.getString("map")).remove(c.getString("key"));
                yield new JsonObject().put("ok", true);
            }
            case "vertx" -> vertx(c);
            case "request" -> request(c);
            case "publish" -> {
                Vertx v = buses.get(c.getString("id"));
                for (int i = 0; i < c.getInteger("count", 1); i++) v.eventBus().publish(c.getString("address"), c.getJsonObject("body"));
                yield new JsonObject().put("ok", true);
            }
            case "listen" -> {
                AtomicInteger n = heard.computeIfAbsent(c.getString("id") + " " + c.getString("address"), k -> new AtomicInteger());
                // what the nodes send: its own forged messages (a publish reaches its own consumers too) are not counted
                MessageConsumer<Object> consumer = buses.get(c.getString("id")).eventBus().consumer(c.getString("address"), m -> {
                    if (!String.valueOf(m.body()).contains("FORGED-INTRUDER")) n.incrementAndGet();
                });
                consumer.completion().toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
                yield new JsonObject().put("ok", true);
            }
            case "heard" -> new JsonObject().put("heard", heard.getOrDefault(c.getString("id") + " " + c.getString("address"), new AtomicInteger()).get());
            case "quit" -> new JsonObject().put("ok", true);
            default -> throw new IllegalArgumentException("unknown op " + c.getString("op"));
        };
    }

    /** A plain Hazelcast member: the 40-line program of the probe. */
    private JsonObject member(JsonObject c) throws Exception {
        Config config = new Config();
        config.setClusterName(c.getString("name"));
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.wait.seconds.before.join", "0");
        config.setProperty("hazelcast.max.join.seconds", "8");
        config.setProperty("hazelcast.logging.type", "jdk");
        config.getNetworkConfig().setPort(0).setPortAutoIncrement(true);
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setConnectionTimeoutSeconds(2).setMembers(strings(c.getJsonArray("members")));
        HazelcastInstance h = Hazelcast.newHazelcastInstance(config);
        Waits.until(() -> h.getCluster().getMembers().size() >= 2, c.getLong("waitMs", 5000L), 100);
        int size = h.getCluster().getMembers().size();
        if (size < 2) {
            h.shutdown();
            return new JsonObject().put("joined", false).put("size", size);
        }
        member = h;
        return new JsonObject().put("joined", true).put("size", size);
    }

    private JsonObject client(JsonObject c) {
        ClientConfig config = new ClientConfig();
        config.setClusterName(c.getString("name"));
        config.setProperty("hazelcast.logging.type", "jdk");
        config.getNetworkConfig().addAddress(c.getString("address"));
        config.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(c.getLong("timeoutMs", 5000L));
        try {
            HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
            JsonObject answer = new JsonObject().put("connected", true);
            JsonObject cameras = new JsonObject();
            for (Map.Entry<Object, Object> e : client.getMap("argus.cameras").entrySet()) cameras.put(String.valueOf(e.getKey()), String.valueOf(e.getValue()));
            client.shutdown();
            return answer.put("cameras", cameras);
        } catch (Exception e) {
            return new JsonObject().put("connected", false).put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** A clustered Vert.x under that Hazelcast name; its event bus plain, or TLS with a certificate of its own. */
    private JsonObject vertx(JsonObject c) throws Exception {
        com.hazelcast.config.Config config = ConfigUtil.loadConfig();
        config.setClusterName(c.getString("name"));
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.setProperty("hazelcast.logging.type", "jdk");
        config.getNetworkConfig().setPort(0).setPortAutoIncrement(true);
        JoinConfig join = config.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(true).setMembers(strings(c.getJsonArray("members")));
        config.setProperty("hazelcast.local.localAddress", "127.0.0.1");
        EventBusOptions bus = new VertxOptions().getEventBusOptions().setHost("127.0.0.1").setPort(0);
        if ("own".equals(c.getString("tls"))) {
            Path store = ownCertificate(c.getString("id"));
            // it trusts any server and presents its own certificate as a client: the nodes must refuse it
            bus.setSsl(true).setKeyCertOptions(new PfxOptions().setPath(store.toString()).setPassword("rogue-pass"))
                    .setTrustAll(true).setClientAuth(ClientAuth.REQUEST);
        }
        VertxOptions options = new VertxOptions().setEventBusOptions(bus);
        Vertx v = Vertx.builder().with(options).withClusterManager(new HazelcastClusterManager(config)).buildClustered()
                .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        buses.put(c.getString("id"), v);
        return new JsonObject().put("ok", true);
    }

    private JsonObject request(JsonObject c) {
        Vertx v = buses.get(c.getString("id"));
        try {
            Object reply = v.eventBus().request(c.getString("address"), c.getJsonObject("body"),
                    new DeliveryOptions().setSendTimeout(c.getLong("timeoutMs", 3000L))).toCompletionStage().toCompletableFuture()
                    .get(c.getLong("timeoutMs", 3000L) + 5000, TimeUnit.MILLISECONDS).body();
            return new JsonObject().put("delivered", true).put("reply", String.valueOf(reply));
        } catch (Exception e) {
            Throwable t = e.getCause() != null ? e.getCause() : e;
            return new JsonObject().put("delivered", false).put("error", t.getClass().getSimpleName() + ": " + t.getMessage());
        }
    }

    /** A PKCS#12 key store with a self-signed certificate of this process, made with the JDK's keytool. */
    private static Path ownCertificate(String id) throws Exception {
        Path dir = Files.createTempDirectory("rogue-");
        Path store = dir.resolve(id + ".p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(), "-genkeypair",
                "-alias", "rogue", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=argus cluster rogue", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "rogue-pass").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) throw new IllegalStateException("keytool failed");
        return store;
    }

    private static List<String> strings(JsonArray a) {
        return a.stream().map(String::valueOf).toList();
    }
}
