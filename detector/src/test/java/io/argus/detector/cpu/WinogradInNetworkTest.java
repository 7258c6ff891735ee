package io.argus.detector.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.darknet.NetworkSpec;
import io.argus.detector.darknet.WeightsInit;
import io.argus.testkit.Budget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our Winograd in a whole network: where the tuner picks it for some layer, the network with it and the one without
 * are timed and the decision is kept in the tuning cache under the network's fingerprint and batch; a kept decision
 * builds that network directly; other precisions and policies build as asked. (Which side wins depends on the
 * machine: the test checks the mechanics, not the winner.)
 */
@Budget(seconds = 10)
class WinogradInNetworkTest {
    @TempDir
    Path dir;

    static final String CFG = WinogradConvolutionTest.cfg(32, 48, 48, 32, "leaky", 1,
            "[convolutional]\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=leaky\n");

    static boolean usesOurs(CpuNetwork net, int n) {
        return net.convolutionChoices(n).stream().anyMatch(c -> c.implementation().startsWith("winograd|argus"));
    }

    @Test
    void theDecisionIsTakenOnceAndKept() throws Exception {
        NetworkSpec spec = NetworkSpec.parse(Path.of("two-layers.cfg"), CFG, 0, 0);
        CpuOptions auto = new CpuOptions(CpuPrecision.FP32, true, dir);
        String key = "network " + WinogradInNetwork.fingerprint(spec) + " b2 winograd";
        try (CpuNetwork net = WinogradInNetwork.open(spec, WeightsInit.darknet(spec, 3), 2, auto, null)) {
            net.forward(2);
        }
        Path file;
        try (var files = Files.list(dir)) {
            file = files.filter(f -> f.toString().endsWith(".properties")).findFirst().orElseThrow();
        }
        Properties p = new Properties();
        try (var in = Files.newInputStream(file)) {
            p.load(in);
        }
        String decided = p.getProperty(key);
        assertTrue("auto".equals(decided) || "off".equals(decided), key + " = " + decided + " in " + p);

        // a kept decision of off builds the network without our Winograd, though the tuner would pick it per layer
        p.setProperty(key, "off");
        try (var out = Files.newOutputStream(file)) {
            p.store(out, null);
        }
        Path other = Files.createDirectory(dir.resolve("kept"));
        Files.copy(file, other.resolve(file.getFileName()));
        try (CpuNetwork net = WinogradInNetwork.open(spec, WeightsInit.darknet(spec, 3), 2,
                new CpuOptions(CpuPrecision.FP32, true, other), null)) {
            net.forward(2);
            assertTrue(!usesOurs(net, 2), "kept off: " + net.convolutionChoices(2));
        }
    }

    @Test
    void otherPrecisionsAndPoliciesBuildAsAsked() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("two-layers.cfg"), CFG, 0, 0);
        try (CpuNetwork net = WinogradInNetwork.open(spec, WeightsInit.darknet(spec, 3), 1,
                new CpuOptions(CpuPrecision.FP32, true, null).withWinograd(WinogradPolicy.F2X2), null)) {
            net.forward(1);
            assertTrue(usesOurs(net, 1), "forced F(2x2) stays: " + net.convolutionChoices(1));
        }
        assertNotEquals(WinogradInNetwork.fingerprint(spec), WinogradInNetwork.fingerprint(
                NetworkSpec.parse(Path.of("two-layers.cfg"), CFG.replace("filters=16\nsize=3\nstride=2", "x"), 0, 0)
                        .withInput(96, 96)));
        assertEquals(WinogradInNetwork.fingerprint(spec),
                WinogradInNetwork.fingerprint(NetworkSpec.parse(Path.of("again.cfg"), CFG, 0, 0)));
    }
}
