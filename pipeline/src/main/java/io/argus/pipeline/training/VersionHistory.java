package io.argus.pipeline.training;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The versions of the trained model as {@code GET /api/models/:id/versions} shows them: the configured base, the one
 * serving, the one a rollback would go back to, the history of swaps, and every version kept, newest first.
 *
 * @param model    the model's id; null where the registry alone speaks (it does not know it)
 * @param previous null when there is nothing to roll back to
 */
public record VersionHistory(String model, String base, String active, String previous, List<String> history,
                             List<Listed> versions) {

    /** A kept version, with whether it serves, is the rollback's target and is in the history of swaps. */
    public record Listed(ModelRegistry.Version version, boolean serving, boolean rollbackTarget, boolean inHistory) {}

    public VersionHistory withModel(String m) { return new VersionHistory(m, base, active, previous, history, versions); }

    public JsonObject toJson() {
        JsonArray a = new JsonArray();
        for (Listed l : versions) {
            a.add(l.version().toJson().put("serving", l.serving()).put("rollbackTarget", l.rollbackTarget())
                    .put("inHistory", l.inHistory()));
        }
        JsonObject j = new JsonObject().put("base", base).put("active", active).put("previous", previous)
                .put("history", new JsonArray(List.copyOf(history))).put("versions", a);
        if (model != null) j.put("model", model);
        return j;
    }
}
