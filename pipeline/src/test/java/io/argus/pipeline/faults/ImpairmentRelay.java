package io.argus.pipeline.faults;

import io.argus.testkit.Pace;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A userspace stand-in for {@code tc qdisc ... netem delay D J loss L} between a camera (Argus, in the root
 * namespace) and its RTSP server (in a network namespace): the development machine's kernel has no {@code sch_netem}
 * ("Specified qdisc kind is unknown"), so delay and jitter cannot come from the kernel there.
 *
 * <p>The camera connects to {@link #port()} on 127.0.0.1; each connection is relayed to the server. While
 * {@link #impair impaired}:
 * <ul>
 *   <li>TCP (the RTSP connection, with the RTP data interleaved on it for {@code transport: tcp}): every chunk read is
 *   held for delay +- jitter (uniform) before it is written on, in order (a TCP stream cannot reorder, so jitter shows
 *   as a varying delay, as it does behind netem). With {@code relayLoss} > 0, that share of the chunks is held 200 ms
 *   longer: Linux's minimum retransmission timeout, what a lost segment costs a TCP stream.</li>
 *   <li>UDP ({@code transport: udp}): the relay rewrites the {@code client_port=a-b} of each RTSP SETUP to two UDP
 *   ports of its own, so the server's RTP and RTCP come to the relay, which drops {@code relayLoss} of the datagrams
 *   and sends the others on to the camera's ports after delay +- jitter each (independently, so they may reorder, as
 *   behind netem). The camera's own RTCP goes straight to the server.</li>
 * </ul>
 * Packet loss on the wire itself, when nftables is there, comes from the kernel ({@link KernelLoss}) and the relay's
 * {@code relayLoss} stays 0. Lifting the impairment lets what is held drain in order.
 */
final class ImpairmentRelay implements AutoCloseable {
    record Impairment(int delayMs, int jitterMs, double relayLoss) {
        static final Impairment NONE = new Impairment(0, 0, 0);
    }

    private static final Pattern CLIENT_PORT = Pattern.compile("client_port=(\\d+)-(\\d+)");
    private static final long RTO_MS = 200;

    private final String host;
    private final int targetPort;
    private final ServerSocket server;
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();
    private final Map<Integer, Integer> udpBack = new ConcurrentHashMap<>(); // relay's port -> camera's port
    private final ScheduledExecutorService udpDelay = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "relay-udp-delay"));
    private volatile Impairment impairment = Impairment.NONE;
    private volatile boolean closed;
    /** Datagrams the relay received from the server, and sent on to the camera (its own drops are the difference). */
    final AtomicLong udpReceived = new AtomicLong();
    final AtomicLong udpSent = new AtomicLong();
    /** The latest a delayed datagram left after it was due (the delay thread's own lateness), in microseconds. */
    final AtomicLong udpMaxLateMicros = new AtomicLong();

    ImpairmentRelay(String host, int targetPort) throws IOException {
        this.host = host;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        daemon(this::accept, "relay-accept").start();
    }

    int port() { return server.getLocalPort(); }

    void impair(Impairment i) { impairment = i; }

    private void accept() {
        while (!closed) {
            try {
                Socket camera = server.accept();
                Socket upstream = new Socket();
                open.add(camera);
                open.add(upstream);
                try {
                    upstream.connect(new InetSocketAddress(host, targetPort), 5000);
                } catch (IOException e) {
                    camera.close();
                    upstream.close();
                    continue;
                }
                camera.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                pump(camera, upstream, true);
                pump(upstream, camera, false);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private record Chunk(long dueNanos, byte[] bytes) {}

    /** Reader and writer threads for one direction; the writer sends each chunk when it is due, in order. */
    private void pump(Socket from, Socket to, boolean toServer) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        Chunk end = new Chunk(0, new byte[0]);
        daemon(() -> {
            byte[] buf = new byte[16 * 1024];
            long lastDue = 0;
            try {
                int n;
                while ((n = in.read(buf)) > 0) {
                    byte[] bytes = java.util.Arrays.copyOf(buf, n);
                    bytes = toServer ? redirectUdp(bytes) : restoreUdp(bytes);
                    Impairment i = impairment;
                    long now = System.nanoTime();
                    long delayMs = i.delayMs() + jitter(i.jitterMs());
                    if (i.relayLoss() > 0 && ThreadLocalRandom.current().nextDouble() < i.relayLoss()) delayMs += RTO_MS;
                    lastDue = Math.max(lastDue, now + Math.max(0, delayMs) * 1_000_000L);
                    queue.add(new Chunk(lastDue, bytes));
                }
            } catch (IOException e) {
                // either side closed
            }
            queue.add(end);
        }, "relay-read").start();
        daemon(() -> {
            try {
                while (true) {
                    Chunk c = queue.take();
                    if (c == end) break;
                    Pace.until(c.dueNanos(), "the chunk's impaired delivery time (delay and jitter)");
                    out.write(c.bytes());
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // closed
            }
            try {
                from.close();
                to.close();
            } catch (IOException ignored) {
                // already closed
            }
        }, "relay-write").start();
    }

    private static long jitter(int jitterMs) {
        return jitterMs > 0 ? ThreadLocalRandom.current().nextLong(-jitterMs, jitterMs + 1L) : 0;
    }

    /** A SETUP's {@code client_port=a-b}: two relay sockets take the server's datagrams for a and b. */
    private byte[] redirectUdp(byte[] bytes) throws IOException {
        String s = new String(bytes, StandardCharsets.ISO_8859_1);
        Matcher m = CLIENT_PORT.matcher(s);
        if (!m.find()) return bytes;
        int rtp = udpForward(Integer.parseInt(m.group(1)));
        int rtcp = udpForward(Integer.parseInt(m.group(2)));
        return m.replaceFirst("client_port=" + rtp + "-" + rtcp).getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The server's answer names the relay's ports: give the camera back its own. */
    private byte[] restoreUdp(byte[] bytes) {
        if (udpBack.isEmpty()) return bytes;
        String s = new String(bytes, StandardCharsets.ISO_8859_1);
        Matcher m = CLIENT_PORT.matcher(s);
        if (!m.find()) return bytes;
        Integer a = udpBack.get(Integer.parseInt(m.group(1)));
        Integer b = udpBack.get(Integer.parseInt(m.group(2)));
        if (a == null || b == null) return bytes;
        return m.replaceFirst("client_port=" + a + "-" + b).getBytes(StandardCharsets.ISO_8859_1);
    }

    private int udpForward(int cameraPort) throws SocketException {
        DatagramSocket in = new DatagramSocket(new InetSocketAddress(0));
        DatagramSocket outSock = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        open.add(in);
        open.add(outSock);
        udpBack.put(in.getLocalPort(), cameraPort);
        InetSocketAddress camera = new InetSocketAddress(InetAddress.getLoopbackAddress(), cameraPort);
        daemon(() -> {
            byte[] buf = new byte[65536];
            while (!closed) {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    in.receive(p);
                } catch (IOException e) {
                    return;
                }
                udpReceived.incrementAndGet();
                Impairment i = impairment;
                if (i.relayLoss() > 0 && ThreadLocalRandom.current().nextDouble() < i.relayLoss()) continue;
                DatagramPacket copy = new DatagramPacket(java.util.Arrays.copyOf(p.getData(), p.getLength()), p.getLength(), camera);
                long delay = Math.max(0, i.delayMs() + jitter(i.jitterMs()));
                long due = System.nanoTime() + delay * 1_000_000L;
                Runnable send = () -> {
                    udpMaxLateMicros.accumulateAndGet((System.nanoTime() - due) / 1000, Math::max);
                    try {
                        outSock.send(copy);
                        udpSent.incrementAndGet();
                    } catch (IOException ignored) {
                        // closed
                    }
                };
                if (delay == 0) send.run();
                else udpDelay.schedule(send, delay, TimeUnit.MILLISECONDS);
            }
        }, "relay-udp").start();
        return in.getLocalPort();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        closed = true;
        udpDelay.shutdownNow();
        try {
            server.close();
        } catch (IOException ignored) {
            // closed
        }
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closed
            }
        }
    }
}
