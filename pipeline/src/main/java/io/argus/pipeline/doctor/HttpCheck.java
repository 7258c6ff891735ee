package io.argus.pipeline.doctor;

import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.LoopbackHost;
import io.argus.pipeline.http.AccessToken;
import io.argus.pipeline.http.TokenFile;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;

/**
 * The HTTP server of the config: is its port free (the most common reason a second {@code argus run} fails), and who
 * can reach it (loopback or the network, with or without a token).
 */
final class HttpCheck implements Check {
    private final ConfigCheck source;

    HttpCheck(ConfigCheck source) {
        this.source = source;
    }

    @Override
    public String name() { return "HTTP"; }

    @Override
    public List<Finding> run() {
        ArgusConfig config = source.config();
        if (config == null) return List.of(Finding.info("HTTP port", "not checked: the config did not load"));
        ArgusConfig.Http http = config.http();
        return List.of(port(http, config), access(http, config.cacheDir()));
    }

    private static Finding port(ArgusConfig.Http http, ArgusConfig config) {
        String where = http.host() + ":" + http.port();
        if (http.port() == 0) return Finding.ok("HTTP port", "0: a free port is chosen at start");
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true); // as Vert.x does: a port in TIME_WAIT is free, one with a listener is not
            s.bind(new InetSocketAddress(http.host(), http.port()));
        } catch (IOException e) {
            int other = http.port() == 65535 ? 8081 : http.port() + 1;
            return Finding.fail("HTTP port", where + " is in use (" + Doctor.describe(e) + "): another program, "
                            + "or an argus already running, listens there",
                    "use another port: ARGUS_HTTP_PORT=" + other + " bin/argus run, or http.port in " + config.file());
        }
        return Finding.ok("HTTP port", where + " is free");
    }

    /** The same decision the server makes at start (http.AccessToken), said without creating anything. */
    private static Finding access(ArgusConfig.Http http, java.nio.file.Path cacheDir) {
        if (!LoopbackHost.is(http.host())) {
            try {
                InetAddress.getByName(http.host());
            } catch (IOException e) {
                return Finding.fail("HTTP access", "http.host " + http.host() + " does not resolve: " + Doctor.describe(e),
                        "set http.host to 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)");
            }
        }
        boolean loopback = LoopbackHost.is(http.host());
        String reach = loopback ? "http.host " + http.host() + ": this machine only" : "http.host " + http.host() + ": reachable from the network";
        if (http.token() != null) return Finding.ok("HTTP access", reach + "; http.token guards the API, /ws and camera images");
        if (loopback) return Finding.ok("HTTP access", reach + "; open (no token needed on loopback)");
        java.nio.file.Path file = TokenFile.in(cacheDir);
        return Finding.ok("HTTP access", reach + "; a generated token guards the API, /ws and camera images ("
                + file + (java.nio.file.Files.exists(file) ? "" : ", made at first start") + "; `argus token show` prints it)");
    }
}
