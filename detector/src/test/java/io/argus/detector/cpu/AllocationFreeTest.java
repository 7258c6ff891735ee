package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.argus.detector.BgrImage;
import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.detector.post.Preprocess;
import io.argus.detector.testing.FastNetworks;
import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.Test;

/**
 * After warm-up, a frame costs no Java allocation and no native allocation: pre-processing and the whole forward
 * pass run in memory allocated once per (model, batch). Counted by the JVM's per-thread allocation counter and by
 * JavaCPP's native byte count. Also with our Winograd forced on every layer it handles (its transforms run on the
 * network's own threads, which park between layers).
 */
@Budget(seconds = 50)
class AllocationFreeTest {
    @Test
    void preprocessAndForwardAllocateNothingAfterWarmUp() {
        // each Winograd variant forced once (its code does not branch on the network); yolov3-tiny, with oneDNN's
        // choices, adds the max pool of stride 1 that yolov4-tiny lacks
        for (WinogradPolicy winograd : new WinogradPolicy[] {WinogradPolicy.AUTO, WinogradPolicy.F2X2, WinogradPolicy.F4X4}) {
            assertFramesAllocateNothing("yolov4-tiny", winograd);
        }
        assertFramesAllocateNothing("yolov3-tiny", WinogradPolicy.AUTO);
    }

    static void assertFramesAllocateNothing(String name, WinogradPolicy winograd) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), FastNetworks.WIDTH, FastNetworks.HEIGHT);
        BgrImage a = BgrImage.read(ProjectFiles.sampleImages().get(0));
        BgrImage b = BgrImage.read(ProjectFiles.sampleImages().get(1));
        try (CpuNetwork net = new CpuNetwork(spec, WeightsInit.darknet(spec, 1), 2, CpuOptions.DEFAULTS.withWinograd(winograd))) {
            Preprocess pre = new Preprocess();
            int size = spec.inputShape().size();
            Runnable frame = () -> {
                pre.write(a, spec.net().width(), spec.net().height(), false, net.input(), 0);
                pre.write(b, spec.net().width(), spec.net().height(), true, net.input(), size);
                net.forward(2);
                net.forward(1);
            };
            for (int i = 0; i < 20; i++) frame.run();      // warm-up: scratch growth, primitives, JIT
            // Windows of 10 frames until one allocates nothing (at most 5). A frame that allocates does so in every
            // window; a branch first taken late (the caller parking for the helper threads only once a loaded
            // machine delays them) can make the JIT drop compiled code whose allocations it had eliminated, and the
            // interpreter allocates a few objects (120 bytes once) until the code is compiled again.
            String what = name + " winograd " + winograd.label();
            List<Long> javaBytes = new ArrayList<>(), nativeBytes = new ArrayList<>();
            for (int window = 0; window < 5 && (javaBytes.isEmpty() || javaBytes.getLast() != 0 || nativeBytes.getLast() != 0); window++) {
                long nativeBefore = Pointer.totalBytes();
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 10; i++) frame.run();
                javaBytes.add(threads.getCurrentThreadAllocatedBytes() - before);
                nativeBytes.add(Pointer.totalBytes() - nativeBefore);
            }
            assertEquals(0, javaBytes.getLast(), what + ": Java bytes allocated by 10 frames, window by window: " + javaBytes);
            assertEquals(0, nativeBytes.getLast(), what + ": native bytes (JavaCPP) allocated by 10 frames, window by window: "
                    + nativeBytes);
        }
    }
}
