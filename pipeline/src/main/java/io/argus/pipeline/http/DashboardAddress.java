package io.argus.pipeline.http;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the dashboard is and how to get in, as told to the user on standard output by {@code argus run} and
 * {@code argus token}. Never through the logger: the URL may carry the token, and logs end up in places (journals,
 * log collectors, bug reports) that screens do not.
 *
 * @param host   a host name for URLs: {@code localhost} for a wildcard listen address
 * @param port   the port
 * @param access the token policy in force
 */
public record DashboardAddress(String host, int port, AccessToken access) {
    public static DashboardAddress of(String listenHost, int port, AccessToken access) {
        String h = listenHost.strip();
        if (h.isEmpty() || h.equals("0.0.0.0") || h.equals("::") || h.equals("[::]")) h = "localhost";
        else if (h.contains(":") && !h.startsWith("[")) h = "[" + h + "]";
        return new DashboardAddress(h, port, access);
    }

    /** The dashboard without the token. */
    public String url() { return "http://" + host + ":" + port + "/"; }

    /** The dashboard with the token: opening it once logs the browser in (a cookie) and drops the token from the address bar. */
    public String urlWithToken() { return access.open() ? url() : url() + "?token=" + access.token(); }

    /**
     * What {@code argus run} prints once started: the URL with the token only when this start generated it (the one
     * time it is shown unasked), otherwise where to find it.
     */
    public List<String> startLines() {
        List<String> lines = new ArrayList<>();
        String dashboard = access.generatedNow() ? urlWithToken() : url();
        lines.add("argus: dashboard " + dashboard + "  websocket ws://" + host + ":" + port + "/ws  metrics /metrics");
        switch (access.kind()) {
            case OPEN -> { }
            case CONFIGURED -> lines.add("argus: access token: http.token of the config; see: argus token show");
            case FILE -> lines.add(access.generatedNow()
                    ? "argus: generated an access token, kept in " + access.file() + " (shown only this once; see: argus token show)"
                    : "argus: token in " + access.file() + "; see: argus token show");
        }
        return lines;
    }
}
