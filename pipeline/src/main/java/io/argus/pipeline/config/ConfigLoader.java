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

/** Reads the YAML file with Vert.x Config, then applies environment overrides and checks it ({@link ArgusConfig}). */
public final class ConfigLoader {
    private ConfigLoader() {}

    public static Future<ArgusConfig> load(Vertx vertx, Path file, Map<String, String> env) {
        if (!Files.isRegularFile(file)) return Future.failedFuture(new ConfigException(file.toString(), "no such config file"));
        ConfigStoreOptions yaml = new ConfigStoreOptions().setType("file").setFormat("yaml")
                .setConfig(new JsonObject().put("path", file.toAbsolutePath().toString()));
        ConfigRetriever retriever = ConfigRetriever.create(vertx, new ConfigRetrieverOptions().setScanPeriod(-1).addStore(yaml));
        return retriever.getConfig()
                .recover(e -> Future.failedFuture(new ConfigException(file.toString(), "not valid YAML: " + firstLine(e))))
                .compose(json -> {
                    retriever.close();
                    try {
                        return Future.succeededFuture(ArgusConfig.read(file, json, env));
                    } catch (ConfigException e) {
                        return Future.failedFuture(new ConfigException(file + ": " + e.key(), reason(e)));
                    }
                });
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
