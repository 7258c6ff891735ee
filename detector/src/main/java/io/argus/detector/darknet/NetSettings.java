package io.argus.detector.darknet;

/**
 * The {@code [net]} section: input geometry, pre-processing and the training schedule (kept for the trainer).
 * Defaults are Darknet's.
 */
public record NetSettings(int width, int height, int channels, int batch, int subdivisions, boolean letterBox,
                          Training training) {

    /** Learning-rate policy, augmentation and mixed-precision keys. */
    public record Training(float learningRate, float momentum, float decay, int burnIn, float power, int maxBatches,
                           String policy, int[] steps, float[] scales, float gamma, int step, float angle,
                           float saturation, float exposure, float hue, boolean flip, boolean mosaic,
                           float emaAlpha, float initialLossScale, float maxLossScale, float minLossScale,
                           int lossScaleIncIterations) {}

    static NetSettings from(CfgSection s) {
        int width = s.getInt("width", 0);
        int height = s.getInt("height", 0);
        int channels = s.getInt("channels", 0);
        if (width <= 0) throw s.error("width", "expected a positive integer, found " + width);
        if (height <= 0) throw s.error("height", "expected a positive integer, found " + height);
        if (channels <= 0) throw s.error("channels", "expected a positive integer, found " + channels);
        int batch = s.getInt("batch", 1);
        int subdivisions = s.getInt("subdivisions", 1);
        if (batch <= 0) throw s.error("batch", "expected a positive integer, found " + batch);
        if (subdivisions <= 0 || batch % subdivisions != 0) {
            throw s.error("subdivisions", "expected a positive divisor of batch=" + batch + ", found " + subdivisions);
        }
        boolean letterBox = s.getFlag("letter_box", false);
        String policy = s.getChoice("policy", "constant", "constant", "steps", "step", "poly", "exp", "sig",
                "random", "sgdr");
        int[] steps = s.getIntList("steps");
        float[] scales = s.getFloatList("scales");
        if (steps != null || scales != null) {
            int ns = steps == null ? 0 : steps.length;
            int nc = scales == null ? 0 : scales.length;
            if (ns != nc) throw s.error("scales", "expected " + ns + " values (one per step), found " + nc);
        }
        Training t = new Training(
                s.getFloat("learning_rate", 0.001f),
                s.getFloat("momentum", 0.9f),
                s.getFloat("decay", 0.0001f),
                s.getInt("burn_in", 0),
                s.getFloat("power", 4f),
                s.getInt("max_batches", 0),
                policy,
                steps == null ? new int[0] : steps,
                scales == null ? new float[0] : scales,
                s.getFloat("gamma", 1f),
                s.getInt("step", 1),
                s.getFloat("angle", 0f),
                s.getFloat("saturation", 1f),
                s.getFloat("exposure", 1f),
                s.getFloat("hue", 0f),
                s.getFlag("flip", true),
                s.getFlag("mosaic", false),
                s.getFloat("ema_alpha", 0f),
                s.getFloat("initial_loss_scale", 1f),
                s.getFloat("max_loss_scale", 16384f),
                s.getFloat("min_loss_scale", 0.0009765625f),
                s.getInt("loss_scale_inc_iterations", 1000));
        return new NetSettings(width, height, channels, batch, subdivisions, letterBox, t);
    }

    /**
     * An input of this size with Darknet's defaults for everything else, for networks that come without a [net]
     * section (imported ONNX graphs): the defaults are those a cfg's [net] gets, read by the same code.
     */
    public static NetSettings ofInput(int width, int height, int channels) {
        String text = "[net]\nwidth=" + width + "\nheight=" + height + "\nchannels=" + channels + "\n";
        return from(CfgFile.parse(java.nio.file.Path.of("[net]"), text).get(0));
    }

    public NetSettings withInput(int newWidth, int newHeight) {
        return new NetSettings(newWidth, newHeight, channels, batch, subdivisions, letterBox, training);
    }
}
