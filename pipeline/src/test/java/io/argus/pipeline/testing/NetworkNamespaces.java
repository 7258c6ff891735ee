package io.argus.pipeline.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Linux network namespaces joined by a bridge in the root namespace, for tests that cut the network between processes
 * (iproute2's {@code ip}; root only). Namespace {@code i} (1-based) is {@code <prefix>-i} with {@code lo} up and one
 * interface {@code eth0} at {@code <subnet>.1i/24}, the other end of its veth pair ({@code <prefix>-vi}) on the bridge
 * {@code <prefix>-br}, which has {@code <subnet>.1/24}: the root namespace (the test process) reaches every namespace
 * over it, and the namespaces reach each other.
 *
 * <p>{@link #isolate} cuts namespaces apart with blackhole routes on both sides ({@code ip route add blackhole}):
 * packets on established connections vanish silently, as in a real partition, while the bridge (and so the test) still
 * reaches everyone. tc filters ({@code prio} qdisc with {@code u32 ... action drop}) would drop packets at the
 * interface instead, but need the {@code sch_prio}, {@code cls_u32} and {@code act_gact} kernel modules, which the
 * development machine's kernel lacks (no module is loadable there: "Specified qdisc kind is unknown"). One difference:
 * a new connection across a blackhole fails at once (EINVAL from connect) rather than timing out; Hazelcast's
 * members keep their established connections, so they still find each other gone by missing heartbeats only.
 *
 * <p>{@link #close} deletes the namespaces (their bind mounts under {@code /run/netns}), the veths and the bridge; it
 * is also run by a shutdown hook should the test JVM be stopped first. The namespaces' processes must be gone first:
 * a namespace with a process in it outlives its name (and its veth pair with it).
 */
public final class NetworkNamespaces implements AutoCloseable {
    public static final String IP = "ip";

    public final String prefix;
    public final String subnet;
    public final int count;
    private final List<String> created = new ArrayList<>();
    private final List<String> routes = new ArrayList<>(); // "ns|dst" of every blackhole route added
    private final Thread hook;
    private boolean bridge;
    private boolean closed;

    private NetworkNamespaces(String prefix, String subnet, int count) {
        this.prefix = prefix;
        this.subnet = subnet;
        this.count = count;
        this.hook = new Thread(this::closeQuietly, "netns-cleanup");
    }

    /**
     * Why namespaces cannot be made here (not root, no {@code ip}, {@code ip netns add} refused), or null when they
     * can: probes with a namespace of its own, deleted at once.
     */
    public static String unavailable() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            if (!Integer.valueOf(0).equals(uid)) return "network namespaces need root (uid " + uid + ")";
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "cannot tell whether this is root (" + e + ")";
        }
        String probe = "argus-probe" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        try {
            Result r = exec(List.of(IP, "netns", "add", probe));
            if (r.status != 0) return "`ip netns add` failed: " + r.output.strip();
            exec(List.of(IP, "netns", "del", probe));
            return null;
        } catch (IOException e) {
            return "cannot run `ip` (iproute2): " + e.getMessage();
        }
    }

    /** Makes {@code count} namespaces on a bridge, on a free 10.x.y.0/24. */
    public static NetworkNamespaces create(int count) throws IOException {
        String prefix = "argus-p" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        NetworkNamespaces n = new NetworkNamespaces(prefix, freeSubnet(), count);
        Runtime.getRuntime().addShutdownHook(n.hook);
        try {
            n.build();
        } catch (IOException | RuntimeException e) {
            n.closeQuietly();
            throw e;
        }
        return n;
    }

    private void build() throws IOException {
        run(IP, "link", "add", bridgeName(), "type", "bridge");
        bridge = true;
        run(IP, "addr", "add", subnet + ".1/24", "dev", bridgeName());
        run(IP, "link", "set", bridgeName(), "up");
        for (int i = 1; i <= count; i++) {
            String ns = name(i);
            run(IP, "netns", "add", ns);
            created.add(ns);
            run(IP, "link", "add", vethName(i), "type", "veth", "peer", "name", "eth0", "netns", ns);
            run(IP, "link", "set", vethName(i), "master", bridgeName(), "up");
            run(IP, "-n", ns, "link", "set", "lo", "up");
            run(IP, "-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
            run(IP, "-n", ns, "link", "set", "eth0", "up");
        }
    }

    public String name(int i) { return prefix + "-" + i; }

    public String bridgeName() { return prefix + "-br"; }

    public String vethName(int i) { return prefix + "-v" + i; }

    /** Namespace {@code i}'s address. */
    public String address(int i) { return subnet + "." + (10 + i); }

    /** The command prefix that runs a program in namespace {@code i}. */
    public List<String> exec(int i) { return List.of(IP, "netns", "exec", name(i)); }

    /** Cuts namespace {@code node} off from each of {@code others}, both ways (blackhole routes on both sides). */
    public void isolate(int node, int... others) throws IOException {
        for (int o : others) {
            blackhole(node, address(o));
            blackhole(o, address(node));
        }
    }

    /** Removes every blackhole route: the namespaces reach each other again. */
    public void heal() throws IOException {
        for (String r : List.copyOf(routes)) {
            String[] p = r.split("\\|");
            run(IP, "-n", p[0], "route", "del", "blackhole", p[1] + "/32");
            routes.remove(r);
        }
    }

    /**
     * Pulls namespace {@code i}'s cable: its veth end on the bridge goes down, so the peer {@code eth0} loses carrier
     * and nothing passes either way until {@link #linkUp}; established connections stay open on both sides.
     */
    public void linkDown(int i) throws IOException { run(IP, "link", "set", vethName(i), "down"); }

    public void linkUp(int i) throws IOException { run(IP, "link", "set", vethName(i), "up"); }

    private void blackhole(int in, String dst) throws IOException {
        run(IP, "-n", name(in), "route", "add", "blackhole", dst + "/32");
        routes.add(name(in) + "|" + dst);
    }

    /** Deletes the namespaces, veths and bridge; fails if any is left (its processes must have ended). */
    @Override
    public synchronized void close() throws IOException {
        if (closed) return;
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down: this is the hook
        }
        List<String> problems = new ArrayList<>();
        for (String ns : created) {
            Result r = exec(List.of(IP, "netns", "del", ns));
            if (r.status != 0) problems.add("ip netns del " + ns + ": " + r.output.strip());
        }
        for (int i = 1; i <= count; i++) {
            // gone with its namespace's end, unless a process still holds the namespace
            exec(List.of(IP, "link", "del", vethName(i)));
        }
        if (bridge) {
            Result r = exec(List.of(IP, "link", "del", bridgeName()));
            if (r.status != 0) problems.add("ip link del " + bridgeName() + ": " + r.output.strip());
        }
        String left = exec(List.of(IP, "-o", "link", "show")).output;
        for (String line : left.split("\n")) if (line.contains(prefix + "-")) problems.add("left over: " + line.strip());
        for (String ns : created) if (Files.exists(Path.of("/run/netns", ns))) problems.add("left over: /run/netns/" + ns);
        if (!problems.isEmpty()) throw new IOException("network namespace cleanup: " + String.join("; ", problems));
    }

    private void closeQuietly() {
        try {
            close();
        } catch (IOException | RuntimeException e) {
            System.err.println(e.getMessage());
        }
    }

    /** A 10.x.y.0/24 that no address or route of the root namespace overlaps. */
    private static String freeSubnet() throws IOException {
        String routes = run(IP, "-o", "-4", "route", "show", "table", "all") + run(IP, "-o", "-4", "addr", "show");
        for (int attempt = 0; attempt < 50; attempt++) {
            int x = ThreadLocalRandom.current().nextInt(100, 250);
            int y = ThreadLocalRandom.current().nextInt(1, 255);
            long net = (10L << 24) | ((long) x << 16) | ((long) y << 8);
            if (!overlaps(routes, net)) return "10." + x + "." + y;
        }
        throw new IOException("no free 10.x.y.0/24 for the test network");
    }

    /** Whether any a.b.c.d[/n] in {@code text} overlaps the /24 at {@code net}. */
    public static boolean overlaps(String text, long net) {
        var m = java.util.regex.Pattern.compile("(\\d+)\\.(\\d+)\\.(\\d+)\\.(\\d+)(/(\\d+))?").matcher(text);
        while (m.find()) {
            long a = 0;
            for (int g = 1; g <= 4; g++) a = (a << 8) | (Long.parseLong(m.group(g)) & 0xff);
            int len = m.group(6) != null ? Integer.parseInt(m.group(6)) : 32;
            if (len == 0) continue; // a default route overlaps everything and says nothing
            int common = Math.min(len, 24);
            long mask = common == 0 ? 0 : (0xffffffffL << (32 - common)) & 0xffffffffL;
            if ((a & mask) == (net & mask)) return true;
        }
        return false;
    }

    private record Result(int status, String output) {}

    private static Result exec(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Result(-1, String.join(" ", cmd) + ": timed out");
            }
            return new Result(p.exitValue(), out);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", cmd) + ": interrupted", e);
        }
    }

    public static String run(String... cmd) throws IOException {
        Result r = exec(List.of(cmd));
        if (r.status != 0) throw new IOException(String.join(" ", cmd) + " failed (" + r.status + "): " + r.output.strip());
        return r.output;
    }
}
