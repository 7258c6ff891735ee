package io.argus.pipeline.faults;

import io.argus.pipeline.testing.NetworkNamespaces;
import io.argus.testkit.Waits;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A server process inside a network namespace ({@code ip netns exec}, which execs it: the process is the server
 * itself, so killing it kills the server): the RTSP server of {@code fault_rtsp_server.py} (GStreamer), or a TCP
 * listener that accepts and never answers. Both print READY once listening; the RTSP server's "PLAY ..." lines are
 * kept ({@link #plays}).
 */
final class NamespacedServer implements AutoCloseable {
    static final Path PYTHON = Path.of("/usr/bin/python3");

    /** A session's media started playing: {@code epochMs} on the server's clock (the same machine's). */
    record Play(long epochMs, int session, String file) {}

    private static final String SILENT = """
            import socket, sys
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((sys.argv[1], int(sys.argv[2])))
            s.listen(64)
            print("READY", flush=True)
            held = []
            while True:
                held.append(s.accept()[0])  # accepted, never read, never answered
            """;

    final Process process;
    final List<Play> plays = new CopyOnWriteArrayList<>();
    final List<String> output = new CopyOnWriteArrayList<>();

    private NamespacedServer(Process process) { this.process = process; }

    /** Whether /usr/bin/python3 has GStreamer's RTSP server (python3-gi, gir1.2-gst-rtsp-server-1.0). */
    static String rtspUnavailable() {
        if (!Files.isExecutable(PYTHON)) return "no " + PYTHON;
        try {
            Process p = new ProcessBuilder(PYTHON.toString(), "-c",
                    "import gi; gi.require_version('GstRtspServer', '1.0'); from gi.repository import GstRtspServer")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? null
                    : "needs /usr/bin/python3 with python3-gi and gir1.2-gst-rtsp-server-1.0: " + out.strip();
        } catch (IOException | InterruptedException e) {
            return "cannot run " + PYTHON + ": " + e;
        }
    }

    /** The RTSP server in namespace {@code i}, on its address and {@code port}, playing {@code files} per session. */
    static NamespacedServer rtsp(NetworkNamespaces net, int i, int port, Path... files) throws Exception {
        Path script = Path.of(NamespacedServer.class.getResource("/fault_rtsp_server.py").toURI());
        List<String> cmd = new ArrayList<>(net.exec(i));
        cmd.addAll(List.of(PYTHON.toString(), script.toString(), net.address(i), Integer.toString(port)));
        for (Path f : files) cmd.add(f.toString());
        return start(cmd);
    }

    /** A server in namespace {@code i} that accepts TCP connections on {@code port} and never answers. */
    static NamespacedServer silent(NetworkNamespaces net, int i, int port) throws Exception {
        List<String> cmd = new ArrayList<>(net.exec(i));
        cmd.addAll(List.of(PYTHON.toString(), "-c", SILENT, net.address(i), Integer.toString(port)));
        return start(cmd);
    }

    private static NamespacedServer start(List<String> cmd) throws Exception {
        String[] last = {""};
        NamespacedServer[] started = {null};
        // tried again every 250 ms: the port of a server just stopped may still be held for a moment
        Waits.waitFor(() -> {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()));
            String line = out.readLine();
            if (!"READY".equals(line)) {
                last[0] = line;
                p.destroyForcibly().waitFor();
                return false;
            }
            NamespacedServer s = new NamespacedServer(p);
            Thread drain = new Thread(() -> s.drain(out), "server-out");
            drain.setDaemon(true);
            drain.start();
            started[0] = s;
            return true;
        }, 20_000, 250, () -> "the server to start: " + String.join(" ", cmd) + ": " + last[0]);
        return started[0];
    }

    private void drain(BufferedReader out) {
        try {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("PLAY ")) {
                    String[] p = line.split(" ", 4);
                    plays.add(new Play(Long.parseLong(p[1]), Integer.parseInt(p[2]), p[3]));
                } else if (output.size() < 200) {
                    output.add(line);
                }
            }
        } catch (IOException | RuntimeException ignored) {
            // server gone
        }
    }

    /** SIGKILL, and wait for the end (the namespace cannot go while its process lives). */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException { kill(); }
}
