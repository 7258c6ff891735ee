package io.argus.detector.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.junit.DictionaryFile;
import io.argus.detector.darknet.CfgException;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsFile.WeightsException;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Darknet's files from outside, fuzzed (Jazzer): a cfg may only fail with {@link CfgException} (file, line, what was
 * expected), a .weights file only with {@link WeightsException}, a .names file only with IllegalArgumentException (not
 * UTF-8, naming file and line) and never gives an empty or untrimmed name. Anything else escaping (a NumberFormatException, an
 * index out of bounds, an OutOfMemoryError from a size read off the input) is a finding. In {@code mvn verify} the
 * seeds (src/test/resources/.../DarknetFilesFuzzTestInputs) and found cases replay; scripts/fuzz.sh fuzzes.
 */
@Budget(seconds = 25)
class DarknetFilesFuzzTest {
    @FuzzTest(maxDuration = "20s")
    @DictionaryFile(resourcePath = "cfg.dict")   // section headers and keys: random bytes rarely spell them
    void cfg(FuzzedDataProvider data) {
        int width = data.consumeInt(0, 4096), height = data.consumeInt(0, 4096);
        String text = data.consumeRemainingAsString();
        try {
            NetworkSpec.parse(Path.of("fuzz.cfg"), text, width, height);
        } catch (CfgException expected) {
            // documented: names the line and what was wrong
        }
    }

    private static final NetworkSpec TINY = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"), 64, 64);

    @FuzzTest(maxDuration = "20s")
    void weights(byte[] bytes) throws Exception {
        Path f = Files.createTempFile("fuzz", ".weights");
        try {
            Files.write(f, bytes);
            WeightsFile.read(f, TINY);
        } catch (WeightsException expected) {
            // documented: names the file and what did not fit
        } finally {
            Files.delete(f);
        }
    }

    @FuzzTest(maxDuration = "20s")
    void names(byte[] bytes) throws Exception {
        Path f = Files.createTempFile("fuzz", ".names");
        try {
            Files.write(f, bytes);
            for (String name : io.argus.detector.Model.readNames(f)) {
                if (name.isEmpty() || !name.equals(name.strip())) {
                    throw new AssertionError("names: \"" + name + "\" is empty or untrimmed");
                }
            }
        } catch (IllegalArgumentException expected) {
            if (!expected.getMessage().startsWith(f + ":")) throw new AssertionError("no file named: " + expected.getMessage());
        } finally {
            Files.delete(f);
        }
    }

    /** A real header in front of fuzzed floats, so the fuzzer gets past the version check. */
    @FuzzTest(maxDuration = "20s")
    void weightsBody(FuzzedDataProvider data) throws Exception {
        byte[] body = data.consumeRemainingAsBytes();
        ByteBuffer b = ByteBuffer.allocate(20 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0).putInt(2).putInt(0).putLong(0).put(body);
        weights(b.array());
    }
}
