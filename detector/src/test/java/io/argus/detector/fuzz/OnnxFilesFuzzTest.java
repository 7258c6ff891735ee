package io.argus.detector.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.argus.detector.onnx.OnnxImport;
import io.argus.detector.onnx.OnnxModelException;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An ONNX file from outside, fuzzed (Jazzer): read, checked, lowered into layers and its head recognised, it may only
 * fail with {@link OnnxModelException} naming the file (what was expected, what was found). Anything else escaping (an
 * index out of bounds, a NullPointerException, an OutOfMemoryError from a size read off the input) is a finding. The
 * seed (src/test/resources/.../OnnxFilesFuzzTestInputs) is a 1 KB graph of every kind of lowering: Conv with SiLU,
 * MaxPool, Resize, Concat, Split, Add and a Reshape left to the host; scripts/fuzz.sh fuzzes.
 */
@Budget(seconds = 25)
class OnnxFilesFuzzTest {
    @FuzzTest(maxDuration = "20s")
    void model(byte[] bytes) throws Exception {
        Path f = Files.createTempFile("fuzz", ".onnx");
        try {
            Files.write(f, bytes);
            OnnxImport.load(f, null, null);
        } catch (OnnxModelException expected) {
            if (!expected.getMessage().startsWith(f + ": ")) {
                throw new AssertionError("no file named: " + expected.getMessage());
            }
        } finally {
            Files.delete(f);
        }
    }
}
