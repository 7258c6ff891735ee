package io.argus.pipeline.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.junit.DictionaryFile;
import io.argus.pipeline.config.ArgusConfig;
import io.argus.pipeline.config.ConfigException;
import io.argus.pipeline.publish.Subscription;
import io.argus.pipeline.config.SceneRulesJson;
import io.argus.testkit.Budget;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.yaml.snakeyaml.Yaml;

/**
 * What the pipeline reads from outside, fuzzed (Jazzer), each through the parser the running code uses and allowed
 * to fail only as documented:
 * <ul>
 *   <li>argus.yaml with ARGUS_* overrides: anything the YAML parser throws (ConfigLoader reports it as "not valid
 *       YAML"), or {@link ConfigException} naming the key;</li>
 *   <li>a WebSocket subscribe message: not a JSON object (the gateway answers so), or IllegalArgumentException naming
 *       the field;</li>
 *   <li>a REST body of zones and lines: not a JSON object, or {@link ConfigException} naming the key.</li>
 * </ul>
 * Seeds and found cases replay in {@code mvn verify}; scripts/fuzz.sh fuzzes.
 */
@Budget(seconds = 70)
class OutsideInputFuzzTest {
    @FuzzTest(maxDuration = "20s")
    @DictionaryFile(resourcePath = "config.dict")   // every key the reader asks for, YAML syntax
    void config(FuzzedDataProvider data) {
        Map<String, String> env = new HashMap<>();
        int overrides = data.consumeInt(0, 3);
        for (int i = 0; i < overrides; i++) {
            env.put("ARGUS_" + data.consumeString(24).toUpperCase(java.util.Locale.ROOT), data.consumeString(24));
        }
        String yaml = data.consumeRemainingAsString();
        Object parsed;
        try {
            parsed = new Yaml().load(yaml);
        } catch (RuntimeException expected) {
            // documented: ConfigLoader turns any failure of the YAML store (SnakeYAML's YAMLException, and e.g. its
            // NumberFormatException for an integer beyond a long) into "<file>: not valid YAML: ..."
            return;
        }
        if (!(parsed instanceof Map<?, ?> map)) return;   // the loader refuses a document that is not a mapping
        JsonObject json;
        try {
            json = new JsonObject(stringKeys(map));
        } catch (IllegalArgumentException | ClassCastException notJson) {
            return;   // YAML beyond JSON (e.g. a binary value): the config loader refuses it the same way
        }
        try {
            ArgusConfig.read(Path.of("/nonexistent/fuzz.yaml"), json, env);
        } catch (ConfigException expected) {
            // documented: names the key, expected vs found
        }
    }

    @FuzzTest(maxDuration = "20s")
    @DictionaryFile(resourcePath = "json.dict")   // JSON syntax and the field names: past the JSON parser
    void subscribe(String text) {
        if (text == null) return;   // Jazzer's null; a WebSocket text frame is never null
        JsonObject j;
        try {
            j = new JsonObject(text);
        } catch (DecodeException | ClassCastException expected) {
            return;   // documented: "not a JSON object"
        }
        try {
            Subscription.fromJson(j);
        } catch (IllegalArgumentException expected) {
            // documented: names the field
        }
    }

    @FuzzTest(maxDuration = "20s")
    @DictionaryFile(resourcePath = "json.dict")
    void sceneRules(String text) {
        if (text == null) return;   // Jazzer's null; an HTTP body is never null
        JsonObject j;
        try {
            j = new JsonObject(text);
        } catch (DecodeException | ClassCastException expected) {
            return;
        }
        try {
            SceneRulesJson.fromJson(j, "cameras.fuzz");
        } catch (ConfigException expected) {
            // documented: names the key
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> stringKeys(Map<?, ?> map) {
        for (Object k : map.keySet()) if (!(k instanceof String)) throw new ClassCastException("key " + k);
        return (Map<String, Object>) map;
    }
}
