package io.argus.trainer.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import io.argus.testkit.Budget;
import io.argus.trainer.data.DataFile;
import io.argus.trainer.data.LabelFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A dataset's files from outside, fuzzed (Jazzer): a label file ({@code class x y w h} lines) and a Darknet .data file
 * may only fail with IllegalArgumentException naming the file, line and field (docs/training.md). Anything else is a
 * finding. Seeds and found cases replay in {@code mvn verify}; scripts/fuzz.sh fuzzes.
 */
@Budget(seconds = 35)
class DatasetFilesFuzzTest {
    @FuzzTest(maxDuration = "20s")
    void labels(FuzzedDataProvider data) throws Exception {
        int classes = data.consumeInt(1, 100);
        Path f = write(data.consumeRemainingAsBytes(), ".txt");
        try {
            LabelFile.read(f, classes);
        } catch (IllegalArgumentException expected) {
            // documented
        } finally {
            Files.delete(f);
        }
    }

    @FuzzTest(maxDuration = "20s")
    @DictionaryEntries({"classes=", "train=", "valid=", "names=", "backup=", "eval=", "=", "#"})   // the keys DataFile reads (a line break as an inline entry breaks Jazzer's dictionary file)
    void dataFile(byte[] bytes) throws Exception {
        Path f = write(bytes, ".data");
        try {
            DataFile.read(f);
        } catch (IllegalArgumentException expected) {
            // documented
        } finally {
            Files.delete(f);
        }
    }

    private static Path write(byte[] bytes, String suffix) throws Exception {
        Path f = Files.createTempFile("fuzz", suffix);
        Files.write(f, new String(bytes, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8));
        return f;
    }
}
