package io.argus.trainer.train;

import io.argus.detector.darknet.CfgException;
import io.argus.detector.darknet.CfgFile;
import io.argus.detector.darknet.CfgSection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Every key the cfg parser reads, per section kind, and what training does with it: honoured (the class that uses it
 * and the tests that show it), honoured for some values and refused for the others, or read for inference only. No
 * key is read and then silently left out of training: {@link #check} refuses, where training starts, a key that
 * training would not honour, naming the key, its value and its line; inference of the same cfg is unaffected.
 * docs/training.md's table is {@link #markdown()}.
 */
public final class TrainingKeys {
    private TrainingKeys() {}

    public enum Status {
        /** Training does what Darknet's does with the key (for every value, or for those {@link Key#only} allows). */
        HONOURED,
        /** Only detection reads it (e.g. NMS); training has nothing to do with it. */
        INFERENCE_ONLY
    }

    /**
     * The values training honours; any other is refused with {@code reason}. {@code refusedExample} is a value the
     * parser takes and training refuses (the test refuses it).
     */
    public record Only(String values, Predicate<String> honours, String reason, String refusedExample) {}

    /**
     * @param section the section kind as Darknet names it (aliases are in {@link #ALIASES})
     * @param effect  what the key does in training, or why it has nothing to do there
     * @param usedBy  the classes that read it
     * @param tests   the tests that show it change training (or its refusal), as Class#method, comma separated
     * @param only    null: every value the parser takes is honoured
     */
    public record Key(String section, String name, Status status, String effect, String usedBy, String tests,
                      Only only) {}

    /** Section names the parser takes for the kinds of the table. */
    public static final Map<String, String> ALIASES = Map.of("network", "net", "conv", "convolutional",
            "max", "maxpool");

    private static final String CONV_TESTS = "ConvolutionalGradientTest#shapesMatchFiniteDifferences, "
            + "TrainingLayersMatchReferenceTest#convolution";
    private static final String UNEVEN = "LayerGradientTest#unevenStridesPadFlagAndExplicitPoolPadding";
    private static final String WIRING = "TrainingKeysTest#netKeysReachWhatTrainingReads";
    private static final String YOLO_KEYS =
            "YoloKeysChangeTheLossTest#aValueOtherThanTheDefaultChangesTheLossOrItsGradient";
    private static final String REFUSALS = "TrainingKeysTest#everyRestrictedKeyRefusesItsExampleNamingKeyValueAndLine";

    private static final List<Key> KEYS = List.of(
            honoured("net", "width", "input width: every image is resized to it, every layer's shape follows",
                    "DetectionBatches, Augmenter", "DataTest#boxesFollowCropResizeAndFlip"),
            honoured("net", "height", "input height, as width", "DetectionBatches, Augmenter",
                    "DataTest#boxesFollowCropResizeAndFlip"),
            restricted("net", "channels", "input channels", "Augmenter", REFUSALS,
                    new Only("3", v -> Integer.parseInt(v) == 3, "the loader makes 3-channel RGB images", "1")),
            honoured("net", "batch", "images per update (the step's lr / batch)", "TrainingPlan, Trainer, Sgd",
                    "CpuTrainingBackendTest#passesAccumulateAndAStepMovesTheMasters, " + WIRING),
            honoured("net", "subdivisions", "passes per update, of batch / subdivisions images each",
                    "TrainingPlan, Trainer",
                    "TrainerLookaheadTest#everyBatchOnceInOrderAndNothingTakenAfterTheLastPass"),
            honoured("net", "letter_box", "1: each crop grows to the input's aspect ratio, so images keep theirs (as"
                    + " detection's letterboxed input)", "Augmentation, Augmenter",
                    "DataTest#letterBoxKeepsTheImagesAspectRatio, " + WIRING),
            honoured("net", "learning_rate", "the base rate (--learning-rate replaces it)", "LearningRate",
                    "LearningRateTest#burnInRisesWithThePowerThenStepsScale, " + WIRING),
            honoured("net", "momentum", "SGD momentum", "Sgd", "SgdTest#momentumDecayAndLossScale, " + WIRING),
            honoured("net", "decay", "weight decay (weights only)", "Sgd", "SgdTest#momentumDecayAndLossScale, "
                    + WIRING),
            honoured("net", "burn_in", "the rate's ramp (lr (i / burn_in)^power); the loss scaler follows the"
                    + " updates during it", "LearningRate, LossScaler",
                    "LearningRateTest#burnInRisesWithThePowerThenStepsScale, BurnInTest#"
                            + "fromWeightsTheRateStartsAtItsValueAndTheLossFalls"),
            honoured("net", "power", "exponent of burn-in and of poly", "LearningRate",
                    "LearningRateTest#burnInRisesWithThePowerThenStepsScale, LearningRateTest#polyExpSigAndConstant"),
            honoured("net", "max_batches", "updates in the run (--max-batches replaces it); poly's horizon",
                    "TrainingPlan, LearningRate", "LearningRateTest#polyExpSigAndConstant, " + WIRING),
            restricted("net", "policy", "the rate after burn-in", "LearningRate",
                    "LearningRateTest#polyExpSigAndConstant, " + REFUSALS,
                    new Only("constant, steps, poly, exp, sig",
                            v -> Set.of("constant", "steps", "poly", "exp", "sig").contains(v.toLowerCase(Locale.ROOT)),
                            "this learning-rate policy is not implemented", "sgdr")),
            honoured("net", "steps", "iterations where steps multiplies the rate", "LearningRate",
                    "LearningRateTest#burnInRisesWithThePowerThenStepsScale, " + WIRING),
            honoured("net", "scales", "the factor at each of steps", "LearningRate",
                    "LearningRateTest#burnInRisesWithThePowerThenStepsScale, " + WIRING),
            honoured("net", "gamma", "exp's base, sig's slope", "LearningRate",
                    "LearningRateTest#polyExpSigAndConstant, " + WIRING),
            honoured("net", "step", "sig's midpoint", "LearningRate", "LearningRateTest#polyExpSigAndConstant, "
                    + WIRING),
            restricted("net", "angle", "rotation (Darknet's classifier's; its detector does not rotate either)",
                    "none", REFUSALS, new Only("0", v -> Float.parseFloat(v) == 0,
                            "images are not rotated (Darknet's detector training does not rotate them either)", "5")),
            honoured("net", "saturation", "saturation scaled by s or 1/s, s up to it", "Augmenter, HsvJitter",
                    "AugmenterTest#hsvJitterGivesTheBranchyFormulasFloatsBitForBit, " + WIRING),
            honoured("net", "exposure", "value scaled by s or 1/s, s up to it", "Augmenter, HsvJitter",
                    "AugmenterTest#hsvJitterGivesTheBranchyFormulasFloatsBitForBit, " + WIRING),
            honoured("net", "hue", "hue shifted by up to it", "Augmenter, HsvJitter",
                    "AugmenterTest#hsvJitterGivesTheBranchyFormulasFloatsBitForBit, " + WIRING),
            honoured("net", "flip", "left-right flips half the time", "Augmenter",
                    "DataTest#boxesFollowCropResizeAndFlip, " + WIRING),
            honoured("net", "mosaic", "four images around a random point", "Augmenter",
                    "DataTest#mosaicTilesFourImagesAndKeepsEachBoxInsideItsTile, " + WIRING),
            honoured("net", "ema_alpha", "an exponential moving average of the weights after burn-in, saved in"
                    + " checkpoints", "Ema, TrainingPlan", "SgdTest#emaStartsAtTheWeightsThenAverages, "
                    + "CpuTrainingBackendTest#emaWeightsAreSavedOnceTheAverageRuns"),
            honoured("net", "initial_loss_scale", "the loss scale at the start", "LossScaler",
                    "MixedPrecisionTest#trainerSkipsOverflowsLowersTheScaleAndRaisesItAgain, " + WIRING),
            honoured("net", "max_loss_scale", "the largest loss scale", "LossScaler",
                    "LossScalerTest#cleanRunsDoubleUpToTheMaximumAndAnOverflowRestartsTheCount, " + WIRING),
            honoured("net", "min_loss_scale", "the smallest loss scale", "LossScaler",
                    "LossScalerTest#overflowSkipsAndHalvesDownToTheMinimum, " + WIRING),
            honoured("net", "loss_scale_inc_iterations", "clean steps before the scale doubles", "LossScaler",
                    "LossScalerTest#cleanRunsDoubleUpToTheMaximumAndAnOverflowRestartsTheCount, " + WIRING),

            honoured("convolutional", "filters", "output channels", "ConvolutionalLayer, ConvParameters", CONV_TESTS),
            honoured("convolutional", "size", "kernel size", "ConvolutionalLayer", CONV_TESTS),
            honoured("convolutional", "stride", "both strides", "ConvolutionalLayer", CONV_TESTS),
            honoured("convolutional", "stride_x", "horizontal stride", "ConvolutionalLayer", UNEVEN),
            honoured("convolutional", "stride_y", "vertical stride", "ConvolutionalLayer", UNEVEN),
            honoured("convolutional", "padding", "padding in pixels", "ConvolutionalLayer", CONV_TESTS),
            honoured("convolutional", "pad", "1: padding size / 2", "ConvolutionalLayer", UNEVEN),
            honoured("convolutional", "groups", "grouped (and depthwise) convolution", "ConvolutionalLayer",
                    CONV_TESTS),
            honoured("convolutional", "dilation", "1 only: the parser refuses others", "ConvolutionalLayer",
                    CONV_TESTS),
            honoured("convolutional", "batch_normalize", "batch statistics in training, rolling ones saved",
                    "ConvolutionalLayer", "ConvolutionalGradientTest#twoConvolutionsMatchFiniteDifferences, "
                            + "TrainingLayersMatchReferenceTest#convolution"),
            honoured("convolutional", "activation", "every activation, forward and derivative", "ConvolutionalLayer",
                    "ConvolutionalGradientTest#twoConvolutionsMatchFiniteDifferences"),

            honoured("maxpool", "size", "window size", "MaxPoolLayer", "LayerGradientTest#maxPool"),
            honoured("maxpool", "stride", "both strides", "MaxPoolLayer", "LayerGradientTest#maxPool"),
            honoured("maxpool", "stride_x", "horizontal stride", "MaxPoolLayer", UNEVEN),
            honoured("maxpool", "stride_y", "vertical stride", "MaxPoolLayer", UNEVEN),
            honoured("maxpool", "padding", "Darknet's padding (default size - 1)", "MaxPoolLayer", UNEVEN),

            honoured("route", "layers", "the layers concatenated, gradients handed back to each", "RouteLayer",
                    "LayerGradientTest#routeConcatenatesAndSplitsGroups"),
            honoured("route", "groups", "channel slices of each input", "RouteLayer",
                    "LayerGradientTest#routeConcatenatesAndSplitsGroups"),
            honoured("route", "group_id", "which slice", "RouteLayer",
                    "LayerGradientTest#routeConcatenatesAndSplitsGroups"),

            honoured("shortcut", "from", "the layer added, the gradient handed to both", "ShortcutLayer",
                    "LayerGradientTest#shortcutAddsBothWays"),
            honoured("shortcut", "activation", "after the sum", "ShortcutLayer",
                    "LayerGradientTest#shortcutAddsBothWays"),
            honoured("shortcut", "weights_type", "none only: the parser refuses others", "ShortcutLayer",
                    "LayerGradientTest#shortcutAddsBothWays"),

            honoured("upsample", "stride", "the factor", "UpsampleLayer", "LayerGradientTest#upsample"),
            honoured("upsample", "scale", "output times scale", "UpsampleLayer", "LayerGradientTest#upsample"),

            honoured("yolo", "classes", "class outputs and targets", "YoloLoss",
                    "YoloLossTest#truthGoesToItsCellAndBestAnchorOthersAreNegatives"),
            honoured("yolo", "num", "anchors competing for each truth, over all heads", "YoloLoss",
                    "YoloLossTest#truthShapedForAnotherHeadGivesNoPositiveHere"),
            honoured("yolo", "mask", "this head's anchors", "YoloLoss",
                    "YoloLossTest#truthShapedForAnotherHeadGivesNoPositiveHere, " + YOLO_KEYS),
            honoured("yolo", "anchors", "anchor sizes: the assignment and the box targets", "YoloLoss",
                    "YoloLossTest#truthGoesToItsCellAndBestAnchorOthersAreNegatives, " + YOLO_KEYS),
            honoured("yolo", "scale_x_y", "the centre's scale: the [yolo] layer's forward and backward, mse's centre"
                    + " term", "YoloLayer, YoloLoss", "TrainingLayersMatchReferenceTest#yoloHandsTheLossGradientBack, "
                    + "YoloLossGradientTest#mseLossGradientIsExact, " + YOLO_KEYS),
            honoured("yolo", "new_coords", "YOLOv4-CSP's box decoding", "YoloLoss",
                    "YoloLossGradientTest#mseLossGradientIsExact, " + YOLO_KEYS),
            honoured("yolo", "ignore_thresh", "no objectness loss above it (with a class above 0.25)", "YoloLoss",
                    "YoloLossTest#aGoodPredictionOfAnotherAnchorIsIgnoredOnlyWhenItAlsoPredictsAClass, " + YOLO_KEYS),
            honoured("yolo", "truth_thresh", "a positive above it", "YoloLoss", YOLO_KEYS),
            honoured("yolo", "iou_thresh", "more positive anchors below 1", "YoloLoss", YOLO_KEYS),
            honoured("yolo", "iou_normalizer", "the box term's weight", "YoloLoss",
                    "YoloLossGradientTest#iouLossesObjectnessAndClassesExactBoxAsDocumented, " + YOLO_KEYS),
            honoured("yolo", "cls_normalizer", "the class term's weight", "YoloLoss", YOLO_KEYS),
            honoured("yolo", "obj_normalizer", "the objectness term's weight", "YoloLoss", YOLO_KEYS),
            honoured("yolo", "iou_loss", "mse, iou, giou, diou, ciou", "YoloLoss, BoxIou",
                    "YoloLossGradientTest#iouLossesObjectnessAndClassesExactBoxAsDocumented, " + YOLO_KEYS),
            honoured("yolo", "max_delta", "the box gradient's clip", "YoloLoss", YOLO_KEYS),
            honoured("yolo", "objectness_smooth", "IoU as the objectness target", "YoloLoss", YOLO_KEYS),
            honoured("yolo", "label_smooth_eps", "smoothed class targets", "YoloLoss", YOLO_KEYS),
            honoured("yolo", "jitter", "the crop's jitter (the last [yolo]'s, as Darknet's)", "Augmentation, Augmenter",
                    "DataTest#boxesFollowCropResizeAndFlip"),
            restricted("yolo", "resize", "random zoom by 1 / resize .. resize; below 1 zooms out only (the last"
                    + " [yolo]'s, as Darknet's)", "Augmentation, Augmenter",
                    "DataTest#resizeZoomsTheImageByUpToItsFactorEitherWay, " + REFUSALS,
                    new Only("> 0", v -> Float.parseFloat(v) > 0, "a zoom factor is positive", "0")),
            honoured("yolo", "random", "multi-scale training", "multi-scale training", "MultiScaleTrainingTest"),
            inference("yolo", "nms_kind", "the NMS of detection and of evaluation's detections",
                    "Detections, GpuPostprocess"),
            inference("yolo", "beta_nms", "diounms's exponent, as nms_kind", "Detections, GpuPostprocess"));

    private static Key honoured(String section, String name, String effect, String usedBy, String tests) {
        return new Key(section, name, Status.HONOURED, effect, usedBy, tests, null);
    }

    private static Key restricted(String section, String name, String effect, String usedBy, String tests, Only only) {
        return new Key(section, name, Status.HONOURED, effect, usedBy, tests, only);
    }

    private static Key inference(String section, String name, String effect, String usedBy) {
        return new Key(section, name, Status.INFERENCE_ONLY, effect, usedBy, "", null);
    }

    public static List<Key> keys() { return KEYS; }

    /** The row of {@code key} in sections of kind {@code section} (an alias or the kind's name), or null. */
    public static Key find(String section, String key) {
        String kind = ALIASES.getOrDefault(section, section);
        for (Key k : KEYS) if (k.section().equals(kind) && k.name().equals(key)) return k;
        return null;
    }

    /** Refuses a cfg whose keys training would not honour; the cfg is read again for the keys' lines. */
    public static void check(Path cfg) {
        check(CfgFile.read(cfg));
    }

    /** Throws for the first key that training does not know or does not honour at its value. */
    public static void check(List<CfgSection> sections) {
        for (CfgSection s : sections) {
            for (Map.Entry<String, CfgSection.Entry> e : s.entries().entrySet()) {
                String key = e.getKey();
                String value = e.getValue().value();
                Key row = find(s.name(), key);
                String problem;
                if (row == null) {
                    problem = "not a key Argus reads; training refuses it rather than train as if it were absent";
                } else if (row.only() != null && !row.only().honours().test(value)) {
                    problem = "training honours only " + row.only().values() + ": " + row.only().reason();
                } else {
                    continue;
                }
                throw new CfgException(s.file(), e.getValue().line(), "[" + s.name() + "] " + key + "=" + value + ": "
                        + problem);
            }
        }
    }

    /** The table of docs/training.md's "Cfg keys in training". */
    public static String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("| section | key | in training | what it does | read by | shown by |\n");
        b.append("|---|---|---|---|---|---|\n");
        for (Key k : KEYS) {
            String status = switch (k.status()) {
                case INFERENCE_ONLY -> "inference only";
                case HONOURED -> k.only() == null ? "honoured"
                        : "honoured: " + k.only().values() + "; refused otherwise (" + k.only().reason() + ")";
            };
            List<String> tests = new ArrayList<>();
            for (String t : testsOf(k)) tests.add("`" + t + "`");
            b.append("| [").append(k.section()).append("] | `").append(k.name()).append("` | ").append(status)
                    .append(" | ").append(k.effect()).append(" | ").append(k.usedBy()).append(" | ")
                    .append(tests.isEmpty() ? "-" : String.join(", ", tests)).append(" |\n");
        }
        return b.toString();
    }

    /** The tests named by a row, each Class#method (or a class). */
    public static List<String> testsOf(Key k) {
        List<String> out = new ArrayList<>();
        for (String t : k.tests().split(",")) if (!t.isBlank()) out.add(t.strip());
        return out;
    }
}
