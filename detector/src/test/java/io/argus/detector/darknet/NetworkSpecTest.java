package io.argus.detector.darknet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.testing.ProjectFiles;
import io.argus.testkit.Budget;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The cfg parser on the official cfgs and on broken ones: every error names file:line and expected vs. found. */
@Budget(seconds = 5)
class NetworkSpecTest {
    static List<String> cfgs() { return ProjectFiles.CFGS; }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cfgs")
    void officialCfgsParseWithoutUnknownKeys(String name) {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg(name), 416, 416);
        assertEquals(List.of(), spec.warnings(), "every key of the official cfgs is understood");
        assertEquals(80, spec.classes());
        for (YoloSpec y : spec.yoloLayers()) {
            assertEquals(255, y.output().channels());
            assertTrue(List.of(13, 26, 52).contains(y.output().width()), name + " head grid " + y.output());
        }
    }

    @Test
    void knownShapesAndFlops() {
        NetworkSpec v4 = NetworkSpec.load(ProjectFiles.cfg("yolov4"), 416, 416);
        assertEquals(162, v4.layers().size());
        assertEquals(List.of(52, 26, 13), v4.yoloLayers().stream().map(y -> y.output().width()).toList());
        // Darknet reports 59.570 BFLOPs for yolov4 at 416 (60.1 in cfg order incl. all convs); ours counts conv MACs x 2
        assertEquals(59.6, v4.flops() / 1e9, 1.0);
        NetworkSpec tiny = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 416, 416);
        assertEquals(6.9, tiny.flops() / 1e9, 0.1);
        RouteSpec grouped = (RouteSpec) tiny.layers().get(3);
        assertEquals(2, grouped.groups());
        assertEquals(1, grouped.groupId());
        assertEquals(32, grouped.output().channels());
        assertEquals(32, grouped.channelOffset(0));
        NetworkSpec csp = NetworkSpec.load(ProjectFiles.cfg("yolov4-csp"));
        assertTrue(csp.net().letterBox());
        assertEquals(512, csp.net().width());
        YoloSpec head = csp.yoloLayers().get(0);
        assertTrue(head.newCoords());
        assertEquals(2.0f, head.scaleXY());
        assertEquals(YoloSpec.NmsKind.DIOU, head.nmsKind());
        assertEquals("ciou", head.training().iouLoss());
    }

    /** Multi-scale training builds the cfg at other sizes: every shape follows the input, the cfg's random as read. */
    @Test
    void theSameCfgAtAnotherInputSize() {
        NetworkSpec v4 = NetworkSpec.load(ProjectFiles.cfg("yolov4"));
        assertEquals(1f, v4.yoloLayers().get(2).training().random());
        NetworkSpec at608 = v4.withInput(608, 352);
        assertEquals(608, at608.net().width());
        assertEquals(352, at608.net().height());
        assertEquals(v4.layers().size(), at608.layers().size());
        assertEquals(List.of(76, 38, 19), at608.yoloLayers().stream().map(y -> y.output().width()).toList());
        assertEquals(List.of(44, 22, 11), at608.yoloLayers().stream().map(y -> y.output().height()).toList());
        assertEquals(v4.net().width(), v4.withInput(608, 352).withInput(v4.net().width(), v4.net().height())
                .net().width());
        assertTrue(v4 == v4.withInput(v4.net().width(), v4.net().height()), "its own size: itself");
    }

    @Test
    void maxpoolSize2Stride1KeepsSize() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov3-tiny"), 416, 416);
        MaxPoolSpec last = (MaxPoolSpec) spec.layers().get(11);
        assertEquals(1, last.strideX());
        assertEquals(last.input(), last.output());
        assertEquals(0, last.offset());
    }

    private static CfgException broken(String text) {
        return assertThrows(CfgException.class, () -> NetworkSpec.parse(Path.of("bad.cfg"), text, 0, 0));
    }

    private static final String NET = "[net]\nwidth=64\nheight=64\nchannels=3\n";

    @Test
    void unknownSectionNamesFileAndLine() {
        CfgException e = broken(NET + "[convolutional]\nfilters=8\nsize=3\n\n[dropout]\nprobability=.5\n");
        assertEquals("bad.cfg:9: [dropout] unknown section (supported: [net], [convolutional], [maxpool], [route], "
                + "[shortcut], [upsample], [yolo])", e.getMessage());
    }

    @Test
    void badNumberNamesKeyAndValue() {
        CfgException e = broken(NET + "[convolutional]\nfilters=eight\n");
        assertEquals("bad.cfg:6: [convolutional] filters: expected an integer, found 'eight'", e.getMessage());
        e = broken(NET + "[yolo]\nmask=0,1\nanchors=1,2,3,x\nnum=2\nclasses=1\n");
        assertEquals("bad.cfg:7: [yolo] anchors: expected a number, found 'x'", e.getMessage());
    }

    @Test
    void routeToMissingLayer() {
        CfgException e = broken(NET + "[convolutional]\nfilters=8\n[route]\nlayers=-1,-5\n");
        assertEquals("bad.cfg:8: [route] layers: layer -5 resolves to -4, expected an earlier layer in 0..0",
                e.getMessage());
        e = broken(NET + "[convolutional]\nfilters=8\n[route]\nlayers=3\n");
        assertTrue(e.getMessage().startsWith("bad.cfg:8: [route] layers: layer 3 resolves to 3"), e.getMessage());
    }

    @Test
    void shapesThatDoNotFit() {
        CfgException e = broken(NET + "[convolutional]\nfilters=8\nstride=2\n[convolutional]\nfilters=8\n"
                + "[route]\nlayers=-1,-2\n[convolutional]\nfilters=16\n[shortcut]\nfrom=-3\n");
        assertEquals("bad.cfg:15: [shortcut] from: shapes do not fit: layer 1 is 8x32x32 but the previous layer is "
                + "16x32x32 (expected equal shapes)", e.getMessage());
        e = broken(NET + "[convolutional]\nfilters=8\n[yolo]\nmask=0\nanchors=10,10\nnum=1\nclasses=2\n");
        assertEquals("bad.cfg:7: [yolo] shapes do not fit: input has 8 channels, expected 7 = 1 anchors x (2 classes + 5)",
                e.getMessage());
        e = broken(NET + "[convolutional]\nfilters=8\n[convolutional]\nfilters=8\nstride=2\n[route]\nlayers=-1,-2\n");
        assertEquals("bad.cfg:11: [route] layers: shapes do not fit: layer 1 is 8x32x32 but layer 0 is 8x64x64 "
                + "(expected equal height and width)", e.getMessage());
    }

    /** Found by the cfg fuzzer in a fresh root (seed upsample-stride-overflow): the product overflowed an int. */
    @Test
    void sizesBeyondAnIntNameTheSection() {
        CfgException e = broken(NET + "[upsample]\nstride=1000000000\n");
        assertEquals("bad.cfg:6: [upsample] stride: an input of 64x64 times 1000000000 is too large", e.getMessage());
        e = broken(NET + "[upsample]\nstride=10000\n");
        assertEquals("bad.cfg:5: [upsample] output 3x640000x640000 holds more than 2^31 - 1 values per image", e.getMessage());
        e = broken("[net]\nwidth=100000\nheight=100000\nchannels=3\n[convolutional]\nfilters=8\n");
        assertEquals("bad.cfg:1: [net] input 3x100000x100000 holds more than 2^31 - 1 values per image", e.getMessage());
    }

    @Test
    void syntaxErrors() {
        assertEquals("bad.cfg:2: option 'width=3' before the first [section]",
                broken("# comment\nwidth=3\n").getMessage());
        assertEquals("bad.cfg:5: expected key=value, found 'filters'",
                broken(NET + "filters\n").getMessage());
        assertEquals("bad.cfg:1: expected [net] as the first section, found [convolutional]",
                broken("[convolutional]\nfilters=3\n").getMessage());
        assertEquals("bad.cfg:7: [convolutional] key 'size' given twice (first at line 6)",
                broken(NET + "[convolutional]\nsize=3\nsize=1\n").getMessage());
        assertEquals("bad.cfg:6: [convolutional] activation: expected one of linear, leaky, relu, logistic, mish, swish, "
                + "found 'gelu'", broken(NET + "[convolutional]\nactivation=gelu\n").getMessage());
        assertEquals("bad.cfg:6: [convolutional] groups: expected a divisor of input channels 3 and filters 8, found 2",
                broken(NET + "[convolutional]\ngroups=2\nfilters=8\n").getMessage());
    }

    @Test
    void unknownKeysAreReportedOncePerKind() {
        NetworkSpec spec = NetworkSpec.parse(Path.of("x.cfg"), NET + "colour=1\n[convolutional]\nfilters=8\nfoo=1\n"
                + "[convolutional]\nfilters=8\nfoo=2\n[maxpool]\nsize=2\nstride=2\nbar=3\n", 0, 0);
        assertEquals(List.of("x.cfg:5: unknown key [net] colour ignored",
                "x.cfg:8: unknown key [convolutional] foo ignored (2 occurrences)",
                "x.cfg:15: unknown key [maxpool] bar ignored"), spec.warnings());
    }

    @Test
    void inputSizeOverride() {
        NetworkSpec spec = NetworkSpec.load(ProjectFiles.cfg("yolov4-tiny"), 320, 256);
        assertEquals(320, spec.net().width());
        assertEquals(256, spec.net().height());
        assertEquals(10, spec.yoloLayers().get(0).output().width());
        assertEquals(8, spec.yoloLayers().get(0).output().height());
        assertFalse(spec.net().letterBox());
    }
}
