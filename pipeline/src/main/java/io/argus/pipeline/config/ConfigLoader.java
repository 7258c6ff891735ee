package io.argus.pipeline.config;

import io.vertx.config.ConfigRetriever;
import io.vertx.config.ConfigRetrieverOptions;
import io.vertx.config.ConfigStoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Reads the YAML file with Vert.x Config, then applies environment overrides and checks it ({@link ArgusConfig}). */
public final class ConfigLoader {
    private ConfigLoader() {}

    public static Future<ArgusConfig> load(Vertx vertx, Path file, Map<String, String> env) {
        return load(vertx, file, env, null);
    }

    /** As above, noting in {@code origins} where each value came from (null: nobody asks). */
    public static Future<ArgusConfig> load(Vertx vertx, Path file, Map<String, String> env, ConfigOrigins origins) {
        if (!Files.isRegularFile(file)) return Future.failedFuture(new ConfigException(file.toString(), "no such config file"));
        ConfigStoreOptions yaml = new ConfigStoreOptions().setType("file").setFormat("yaml")
                .setConfig(new JsonObject().put("path", file.toAbsolutePath().toString()));
        ConfigRetriever retriever = ConfigRetriever.create(vertx, new ConfigRetrieverOptions().setScanPeriod(-1).addStore(yaml));
        return retriever.getConfig()
                .recover(e -> Future.failedFuture(new ConfigException(file.toString(), "not valid YAML: " + firstLine(e))))
                .compose(json -> {
                    retriever.close();
                    try {
                        return Future.succeededFuture(ArgusConfig.read(file, json, env, origins));
                    } catch (ConfigException e) {
                        return Future.failedFuture(new ConfigException(file + ": " + e.key(), reason(e)));
                    }
                });
    }

    /**
     * For command-line tools outside Vert.x: reads the config with a Vert.x of its own, closed again. A bad config
     * fails with its {@link ConfigException}; no answer within {@code seconds} with a TimeoutException.
     */
    public static ArgusConfig loadBlocking(Path file, Map<String, String> env, int seconds) throws Exception {
        return loadBlocking(file, env, seconds, null);
    }

    /** As above, noting in {@code origins} where each value came from (null: nobody asks). */
    public static ArgusConfig loadBlocking(Path file, Map<String, String> env, int seconds, ConfigOrigins origins) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            return load(vertx, file, env, origins).toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } finally {
            vertx.close();
        }
    }

    private static String reason(ConfigException e) {
        return e.getMessage().substring(e.key().length() + 2);
    }

    private static String firstLine(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getMessage() != null && !t.getMessage().contains("line")) t = t.getCause();
        String m = t.getMessage() != null ? t.getMessage() : t.toString();
        return m.replace('\n', ' ').replaceAll("\\s+", " ").strip();
    }
}
