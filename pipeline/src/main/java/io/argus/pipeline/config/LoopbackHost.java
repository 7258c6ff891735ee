package io.argus.pipeline.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Whether a host only accepts connections from this machine: what decides that an HTTP server may stay open without
 * a token ({@code http/AccessToken}) and that a cluster may do without a configured secret ({@link SecretSetting}).
 */
public final class LoopbackHost {
    private LoopbackHost() {}

    /**
     * Whether {@code host} is a loopback address (127.0.0.0/8, ::1) or {@code localhost}. Names other than
     * {@code localhost} count as reachable (no DNS lookup: a start must not hang on it, and a name is as good as any
     * address to a neighbour).
     */
    public static boolean is(String host) {
        String h = host.strip();
        if (h.startsWith("[") && h.endsWith("]")) h = h.substring(1, h.length() - 1);
        if (h.equalsIgnoreCase("localhost")) return true;
        if (!h.matches("[0-9.]+") && !h.contains(":")) return false;
        try {
            return InetAddress.getByName(h).isLoopbackAddress(); // an address literal: parsed, not looked up
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
