package io.argus.trainer.optim;

import io.argus.detector.darknet.NetSettings;

/**
 * Darknet's get_current_rate: during burn_in, learning_rate x (iteration / burn_in)^power; after it, the policy:
 * constant, steps (multiply by scales[i] once iteration reaches steps[i]), poly ((1 - iteration / max_batches)^power),
 * exp (gamma^iteration) or sig (1 / (1 + exp(gamma (iteration - step)))). Iterations count updates from 1.
 */
public final class LearningRate {
    private final float base;
    private final int burnIn;
    private final float power;
    private final String policy;
    private final int[] steps;
    private final float[] scales;
    private final float gamma;
    private final int step;
    private final int maxBatches;

    public LearningRate(float base, int burnIn, float power, String policy, int[] steps, float[] scales, float gamma,
                        int step, int maxBatches) {
        switch (policy) {
            case "constant", "steps", "poly", "exp", "sig" -> { }
            default -> throw new IllegalArgumentException("[net] policy=" + policy
                    + ": not supported for training (expected constant, steps, poly, exp or sig)");
        }
        if (policy.equals("poly") && maxBatches <= 0) {
            throw new IllegalArgumentException("[net] policy=poly needs max_batches > 0");
        }
        this.base = base;
        this.burnIn = burnIn;
        this.power = power;
        this.policy = policy;
        this.steps = steps.clone();
        this.scales = scales.clone();
        this.gamma = gamma;
        this.step = step;
        this.maxBatches = maxBatches;
    }

    /** The schedule of a cfg's [net], with max_batches possibly overridden (0 keeps the cfg's). */
    public static LearningRate of(NetSettings.Training t, int maxBatches) {
        return new LearningRate(t.learningRate(), t.burnIn(), t.power(), t.policy(), t.steps(), t.scales(), t.gamma(),
                t.step(), maxBatches > 0 ? maxBatches : t.maxBatches());
    }

    public int burnIn() { return burnIn; }

    /** The cfg's learning_rate (or the one given instead): the rate after burn-in, before the policy scales it. */
    public float base() { return base; }

    /** The same schedule from base rate {@code rate}. */
    public LearningRate withBase(float rate) {
        if (!(rate > 0) || !Float.isFinite(rate)) {
            throw new IllegalArgumentException("learning rate: expected > 0, found " + rate);
        }
        return new LearningRate(rate, burnIn, power, policy, steps, scales, gamma, step, maxBatches);
    }

    /** The same schedule with {@code iterations} of burn-in (0: the rate starts at its scheduled value). */
    public LearningRate withBurnIn(int iterations) {
        if (iterations < 0) throw new IllegalArgumentException("burn-in: expected >= 0 iterations, found " + iterations);
        return new LearningRate(base, iterations, power, policy, steps, scales, gamma, step, maxBatches);
    }

    /** Whether update number {@code iteration} (from 1) is still in burn-in. */
    public boolean inBurnIn(int iteration) { return iteration < burnIn; }

    /** Rate of update number {@code iteration} (from 1). */
    public float at(int iteration) {
        if (iteration < burnIn) return (float) (base * Math.pow((double) iteration / burnIn, power));
        return switch (policy) {
            case "steps" -> {
                float rate = base;
                for (int i = 0; i < steps.length; i++) {
                    if (steps[i] > iteration) break;
                    rate *= scales[i];
                }
                yield rate;
            }
            case "poly" -> (float) (base * Math.pow(Math.max(0, 1 - (double) iteration / maxBatches), power));
            case "exp" -> (float) (base * Math.pow(gamma, iteration));
            case "sig" -> (float) (base / (1 + Math.exp(gamma * (iteration - step))));
            default -> base;
        };
    }
}
