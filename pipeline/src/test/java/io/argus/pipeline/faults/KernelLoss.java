package io.argus.pipeline.faults;

import io.argus.pipeline.testing.NetworkNamespaces;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Random packet loss in the kernel on namespace {@code i}'s cable, both ways: nftables' {@code numgen random} in
 * netdev ingress chains, one on the namespace's {@code eth0} (what the root namespace sends it) and one on its veth end
 * on the bridge (what it sends). Ingress drops are silent, as on a wire (a drop in an output hook would hand the
 * sender EPERM instead). No {@code tc netem loss}: the development machine's kernel has no {@code sch_netem}; it does
 * have nf_tables (6.18, Debian's nftables package). {@link #close} deletes both tables.
 */
final class KernelLoss implements AutoCloseable {
    static final String NFT = "nft";

    private final List<List<String>> undo = new ArrayList<>();

    /** Drops {@code percent}% of the packets each way on namespace {@code i}'s link. */
    static KernelLoss apply(NetworkNamespaces net, int i, int percent) throws IOException {
        KernelLoss k = new KernelLoss();
        try {
            String table = net.prefix + "-loss";
            k.chain(List.of(), table, net.vethName(i), percent);
            k.chain(net.exec(i), table, "eth0", percent);
        } catch (IOException | RuntimeException e) {
            k.close();
            throw e;
        }
        return k;
    }

    private void chain(List<String> in, String table, String device, int percent) throws IOException {
        nft(in, "add", "table", "netdev", table);
        undo.add(cmd(in, "delete", "table", "netdev", table));
        nft(in, "add", "chain", "netdev", table, "in", "{ type filter hook ingress device " + device + " priority 0; }");
        nft(in, "add", "rule", "netdev", table, "in", "numgen", "random", "mod", "100", "<", Integer.toString(percent), "counter", "drop");
    }

    /** Packets dropped so far (both chains), from their counters. */
    long dropped() {
        long n = 0;
        for (List<String> u : undo) {
            List<String> list = new ArrayList<>(u);
            list.set(list.indexOf("delete"), "list");
            try {
                var m = java.util.regex.Pattern.compile("counter packets (\\d+)").matcher(NetworkNamespaces.run(list.toArray(String[]::new)));
                while (m.find()) n += Long.parseLong(m.group(1));
            } catch (IOException e) {
                return -1;
            }
        }
        return n;
    }

    private static List<String> cmd(List<String> in, String... args) {
        List<String> c = new ArrayList<>(in);
        c.add(NFT);
        c.addAll(List.of(args));
        return c;
    }

    private static void nft(List<String> in, String... args) throws IOException {
        NetworkNamespaces.run(cmd(in, args).toArray(String[]::new));
    }

    /** Why kernel loss cannot be had here (no nft, or the kernel refuses the netdev table), or null. */
    static String unavailable(NetworkNamespaces net, int i) {
        try {
            KernelLoss k = apply(net, i, 0);
            k.close();
            return null;
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (List<String> u : undo.reversed()) {
            try {
                NetworkNamespaces.run(u.toArray(String[]::new));
            } catch (IOException e) {
                if (first == null) first = e;
            }
        }
        undo.clear();
        if (first != null) throw first;
    }
}
