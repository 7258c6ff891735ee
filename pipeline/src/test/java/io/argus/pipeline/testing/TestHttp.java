package io.argus.pipeline.testing;

import io.vertx.ext.web.client.WebClientOptions;

/**
 * The options of the tests' HTTP clients. Argus closes a kept-alive connection that has not sent its next request
 * within {@code http.requestHeadTimeoutMs} (10 s by default: a slow-headers defence); Vert.x's client keeps an idle
 * connection for 60 s and may send on one the server is closing at that moment, which a loaded machine turned into
 * an {@code HttpClosedException}. A client that lets its idle connections go first never meets that race, as
 * docs/pipeline.md advises scripts to do.
 */
public final class TestHttp {
    private TestHttp() {}

    /** Idle connections dropped by the client well before the server's 10 s. */
    public static final int KEEP_ALIVE_SECONDS = 4;

    public static WebClientOptions options(String host, int port) {
        return new WebClientOptions().setDefaultHost(host).setDefaultPort(port).setKeepAliveTimeout(KEEP_ALIVE_SECONDS);
    }
}
