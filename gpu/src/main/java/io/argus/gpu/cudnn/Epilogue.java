package io.argus.gpu.cudnn;

/**
 * What runs after a forward convolution inside cuDNN's kernel: + bias, an activation, and for a [shortcut] fused
 * into it + residual and the shortcut's activation. {@link #NONE} is the plain convolution (training, and the
 * inference fallback when cuDNN has no engine for a fused form).
 */
public record Epilogue(boolean bias, Activation activation, boolean residual, Activation residualActivation) {
    /** The activations cuDNN's pointwise ops can express (Darknet's names; mish is composed). */
    public enum Activation { LINEAR, LEAKY, RELU, LOGISTIC, SWISH, MISH }

    public static final Epilogue NONE = new Epilogue(false, Activation.LINEAR, false, Activation.LINEAR);

    public static Epilogue biasActivation(Activation a) {
        return new Epilogue(true, a, false, Activation.LINEAR);
    }

    public static Epilogue biasActivationResidual(Activation a, Activation residualActivation) {
        return new Epilogue(true, a, true, residualActivation);
    }

    public boolean fused() { return bias || residual; }

    String key() {
        if (!fused()) return "plain";
        return "bias+" + activation + (residual ? "+residual+" + residualActivation : "");
    }
}
