package io.argus.pipeline.training;

import io.vertx.core.json.JsonObject;

/**
 * What a change of the trained model's version gave: the version recorded or made active, the one it replaced when it
 * was swapped in, whether it served already (nothing to do), and where adopted weights came from.
 *
 * @param replaced  the version that served before, when this one was swapped in; else null
 * @param unchanged the weights adopted are those serving already
 * @param origin    {@code operator} or {@code node <id>} for adopted weights; null for a fine-tune or a rollback
 */
public record VersionChange(ModelRegistry.Version version, String replaced, boolean unchanged, String origin) {

    /** As the REST API and the {@code swapped} and {@code rolled-back} training events show it. */
    public JsonObject toJson() {
        JsonObject j = version.toJson();
        if (unchanged) j.put("unchanged", true);
        if (replaced != null) j.put("replaced", replaced);
        if (origin != null) j.put("origin", origin);
        return j;
    }
}
