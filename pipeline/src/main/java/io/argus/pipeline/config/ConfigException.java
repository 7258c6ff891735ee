package io.argus.pipeline.config;

/** An invalid configuration value: names the key (e.g. {@code cameras[1].url}) and what is wrong with it. */
public final class ConfigException extends RuntimeException {
    private final String key;

    public ConfigException(String key, String reason) {
        super(key + ": " + reason);
        this.key = key;
    }

    public String key() { return key; }
}
