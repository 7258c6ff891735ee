package io.argus.pipeline.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first {@code argus detect} example runs as written (on the demo model, the shipped sample) and finds
 * what the README says it finds, with the scores it quotes: a retrained demo model, or a change to inference, that
 * moves them makes this fail until the README says what the command prints now.
 */
@Budget(seconds = 5)
class ReadmeDetectExampleTest {
    /** The sentence after the example: "It finds the four shapes of that scene: cross 0.98, square 0.93, ...". */
    static final Pattern FINDS = Pattern.compile("It finds the \\w+ shapes of that scene: (.+)");
    static final Pattern SCORE = Pattern.compile("(\\w+) (\\d\\.\\d\\d)");
    /** Allows a score that sits on a rounding boundary to round the other way on another CPU; a stale one fails. */
    static final double TOLERANCE = 0.006;

    @TempDir
    Path tmp;

    @Test
    void theDetectExampleFindsWhatTheReadmeQuotes() throws Exception {
        Path home = TestMedia.home();
        String readme = Files.readString(home.resolve("README.md"));
        List<String> args = command(readme, "bin/argus detect --cfg config/models/demo.cfg");
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals("--out")) args.set(i + 1, tmp.resolve("shapes.jpg").toString());
            else if (Files.exists(home.resolve(args.get(i)))) args.set(i, home.resolve(args.get(i)).toString());
        }
        args.add(1, "--backend");
        args.add(2, "cpu"); // the README's figures are the CPU's (a GPU computes in FP16)
        DetectCommandTest.Result r = DetectCommandTest.argus(args.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.size(tmp.resolve("shapes.jpg")) > 0, "the annotated image is written");
        Map<String, Double> found = new LinkedHashMap<>();
        JsonArray detections = new JsonObject(r.out().strip()).getJsonArray("detections");
        for (int i = 0; i < detections.size(); i++) {
            JsonObject d = detections.getJsonObject(i);
            found.put(d.getString("className"), d.getDouble("confidence"));
        }

        Matcher sentence = FINDS.matcher(readme);
        assertTrue(sentence.find(), "README: no \"It finds the ... shapes of that scene: ...\" after the example");
        Map<String, Double> quoted = new LinkedHashMap<>();
        Matcher s = SCORE.matcher(sentence.group(1));
        while (s.find()) quoted.put(s.group(1), Double.parseDouble(s.group(2)));
        String now = String.join(", ", found.entrySet().stream()
                .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue())).toList());
        assertEquals(List.copyOf(found.keySet()), List.copyOf(quoted.keySet()),
                "README quotes " + sentence.group(1) + "; the command prints " + now);
        for (Map.Entry<String, Double> q : quoted.entrySet()) {
            assertEquals(q.getValue(), found.get(q.getKey()), TOLERANCE,
                    "README quotes " + sentence.group(1) + "; the command prints " + now);
        }
    }

    /** The command of the README's shell block that starts with {@code start}, continuation lines joined, split. */
    static List<String> command(String readme, String start) {
        int at = readme.indexOf(start);
        assertTrue(at >= 0, "README: no `" + start + "` example");
        StringBuilder line = new StringBuilder();
        for (String l : readme.substring(at).lines().toList()) {
            boolean more = l.endsWith("\\");
            line.append(more ? l.substring(0, l.length() - 1) : l).append(' ');
            if (!more) break;
        }
        List<String> words = new ArrayList<>(List.of(line.toString().strip().split("\\s+")));
        words.remove(0); // bin/argus
        return words;
    }
}
