package io.argus.pipeline.load;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A WebSocket client on a plain socket, for the clients a library would not let us be: one that does the handshake
 * and then never reads (its receive window fills, it answers no ping), and one that goes away without a close frame
 * (a reset, or a FIN alone), as a browser tab killed or a phone leaving coverage.
 */
final class RawWsClient implements AutoCloseable {
    private final Socket socket;
    final AtomicLong bytesRead = new AtomicLong();
    private volatile boolean reading;

    private RawWsClient(Socket socket) { this.socket = socket; }

    /** Connects and upgrades; {@code receiveBuffer} > 0 sets the socket's receive buffer before connecting. */
    static RawWsClient connect(int port, String uri, String token, int receiveBuffer) throws IOException {
        Socket s = new Socket();
        if (receiveBuffer > 0) s.setReceiveBufferSize(receiveBuffer); // before connect: it sets the window scale
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        s.setSoTimeout(10_000);
        byte[] key = new byte[16];
        ThreadLocalRandom.current().nextBytes(key);
        String request = "GET " + uri + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + Base64.getEncoder().encodeToString(key) + "\r\nSec-WebSocket-Version: 13\r\n"
                + "Authorization: Bearer " + token + "\r\n\r\n";
        OutputStream out = s.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        // the response's head only, byte by byte: what follows is frames we may leave unread
        InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) throw new IOException("closed during the handshake: " + head);
            head.append((char) b);
            if (head.length() > 8192) throw new IOException("response head too long");
        }
        if (!head.toString().startsWith("HTTP/1.1 101")) {
            s.close();
            throw new IOException("upgrade refused: " + head.toString().lines().findFirst().orElse(""));
        }
        s.setSoTimeout(0);
        return new RawWsClient(s);
    }

    int localPort() { return socket.getLocalPort(); }

    /**
     * Writes one text frame (masked, as a client must; with a zero key, which leaves the bytes as they are); blocks
     * while the server does not read.
     */
    void sendText(String text) throws IOException {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        if (payload.length >= 126) throw new IllegalArgumentException("short frames only");
        byte[] frame = new byte[6 + payload.length];
        frame[0] = (byte) 0x81; // FIN, text
        frame[1] = (byte) (0x80 | payload.length); // masked, length; the 4 key bytes stay 0
        System.arraycopy(payload, 0, frame, 6, payload.length);
        socket.getOutputStream().write(frame);
    }

    /** Reads and discards (a client that keeps up, until it vanishes) on a virtual thread. */
    void readInBackground() {
        reading = true;
        Thread.ofVirtual().start(() -> {
            byte[] buf = new byte[16 * 1024];
            try {
                InputStream in = socket.getInputStream();
                int n;
                while (reading && (n = in.read(buf)) >= 0) bytesRead.addAndGet(n);
            } catch (IOException e) {
                // closed under us: the point
            }
        });
    }

    /** Gone with a TCP reset (SO_LINGER 0): no close frame, no FIN. */
    void vanishWithReset() throws IOException {
        reading = false;
        socket.setSoLinger(true, 0);
        socket.close();
    }

    /** Gone with a FIN alone (the sending half shut, no close frame); the socket is closed later by {@link #close}. */
    void vanishWithFin() throws IOException {
        socket.shutdownOutput();
    }

    @Override
    public void close() {
        reading = false;
        try {
            socket.close();
        } catch (IOException ignored) {
            // already
        }
    }
}
