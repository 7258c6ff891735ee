package io.argus.tracking;

import io.argus.detector.Box;

/**
 * One box followed through time: ByteTrack's constant-velocity Kalman filter on the state (cx, cy, a, h, vcx, vcy,
 * va, vh): the box centre, its aspect w/h and its height, and their velocities, measured as (cx, cy, a, h). One step
 * is one frame.
 *
 * <p>The noise is ByteTrack's (and DeepSORT's): standard deviations in proportion to the box height, 1/20 of it for
 * positions and 1/160 for velocities, so a near, large box may move more pixels than a far, small one; the aspect of
 * a rigid object hardly changes, so it has small fixed deviations. The process noise is taken at the height before a
 * step, the measurement noise at the predicted height, as there.
 *
 * <p>Why not Commons Math's {@code KalmanFilter}, which this began on: measured by TrackerBenchmark, it costs about
 * 5 us and 9 KB of garbage per box and frame (8x8 matrices allocated by every product, a Cholesky decomposition per
 * correction), half the tracker's 1 ms budget at 100 objects; splitting it into four 2-state filters saved only 15%
 * (its per-call overhead dominates). Every matrix of this model pairs a coordinate with its own velocity only, so the
 * 8-state filter is exactly four independent 2-state filters, (position, velocity) per coordinate, whose predict and
 * correct are a few multiplications with no allocation. KalmanBoxFilterTest runs this filter step for step against
 * Commons Math's KalmanFilter on the full 8-state model (the reference) and finds the same states and covariances.
 */
public final class KalmanBoxFilter {
    /** Standard deviation of positions, as a fraction of the box height (ByteTrack's std_weight_position). */
    static final double POSITION_WEIGHT = 1.0 / 20;
    /** Standard deviation of velocities per frame, as a fraction of the box height (std_weight_velocity). */
    static final double VELOCITY_WEIGHT = 1.0 / 160;

    /** The coordinates, in ByteTrack's order. */
    private static final int CX = 0;
    private static final int CY = 1;
    private static final int ASPECT = 2;
    private static final int HEIGHT = 3;
    private static final int COORDINATES = 4;

    /** Per coordinate: its value and velocity (per frame). */
    private final double[] position = new double[COORDINATES];
    private final double[] velocity = new double[COORDINATES];
    /** Per coordinate, its 2x2 covariance: var(position), cov(position, velocity), var(velocity). */
    private final double[] positionVariance = new double[COORDINATES];
    private final double[] covariance = new double[COORDINATES];
    private final double[] velocityVariance = new double[COORDINATES];
    /** The last measurement, (cx, cy, a, h): kept to spare an allocation per update. */
    private final double[] measurement = new double[COORDINATES];

    /** A filter starting at this box at rest, with ByteTrack's initial uncertainty (wide on velocities). */
    public KalmanBoxFilter(Box box) {
        measure(box, position);
        double h = position[HEIGHT];
        for (int i = 0; i < COORDINATES; i++) {
            double positionDeviation = i == ASPECT ? 1e-2 : 2 * POSITION_WEIGHT * h;
            double velocityDeviation = i == ASPECT ? 1e-5 : 10 * VELOCITY_WEIGHT * h;
            positionVariance[i] = positionDeviation * positionDeviation;
            velocityVariance[i] = velocityDeviation * velocityDeviation;
        }
    }

    /** One frame ahead at constant velocity. */
    public void predict() {
        step();
    }

    /**
     * One frame ahead with the height's velocity set to 0 first: ByteTrack's step for a track it does not see, so an
     * unseen box keeps its size instead of shrinking or growing without bound; its centre goes on moving. (The
     * velocity's variance stays, as there.)
     */
    public void predictHoldingHeight() {
        velocity[HEIGHT] = 0;
        step();
    }

    /** x' = x + v, v' = v; P' = A P A' + Q, with Q at the height before the step. */
    private void step() {
        double h = position[HEIGHT];
        for (int i = 0; i < COORDINATES; i++) {
            double positionDeviation = i == ASPECT ? 1e-2 : POSITION_WEIGHT * h;
            double velocityDeviation = i == ASPECT ? 1e-5 : VELOCITY_WEIGHT * h;
            position[i] += velocity[i];
            positionVariance[i] += 2 * covariance[i] + velocityVariance[i] + positionDeviation * positionDeviation;
            covariance[i] += velocityVariance[i];
            velocityVariance[i] += velocityDeviation * velocityDeviation;
        }
    }

    /** Corrects the state with the box measured in this frame (after a predict); R at the predicted height. */
    public void update(Box measured) {
        measure(measured, measurement);
        double h = position[HEIGHT];
        for (int i = 0; i < COORDINATES; i++) {
            double measurementDeviation = i == ASPECT ? 1e-1 : POSITION_WEIGHT * h;
            double innovationVariance = positionVariance[i] + measurementDeviation * measurementDeviation;
            double positionGain = positionVariance[i] / innovationVariance;
            double velocityGain = covariance[i] / innovationVariance;
            double innovation = measurement[i] - position[i];
            position[i] += positionGain * innovation;
            velocity[i] += velocityGain * innovation;
            // P = (I - K H) P
            velocityVariance[i] -= velocityGain * covariance[i];
            positionVariance[i] *= 1 - positionGain;
            covariance[i] *= 1 - positionGain;
        }
    }

    /** The box of the current state (predicted, or corrected when updated since). */
    public Box box() {
        double h = position[HEIGHT];
        double w = position[ASPECT] * h;
        return new Box((float) (position[CX] - w / 2), (float) (position[CY] - h / 2), (float) w, (float) h);
    }

    /** Velocity of the box centre along x, pixels per frame. */
    public double velocityXPerFrame() {
        return velocity[CX];
    }

    /** Velocity of the box centre along y, pixels per frame. */
    public double velocityYPerFrame() {
        return velocity[CY];
    }

    /** Velocity of the box centre along x, pixels per second, for frames msPerFrame apart (0 if that is not > 0). */
    public double velocityX(double msPerFrame) {
        return perSecond(velocity[CX], msPerFrame);
    }

    /** Velocity of the box centre along y, pixels per second, for frames msPerFrame apart (0 if that is not > 0). */
    public double velocityY(double msPerFrame) {
        return perSecond(velocity[CY], msPerFrame);
    }

    /** The state (cx, cy, a, h, vcx, vcy, va, vh), for comparison with the 8-state reference. */
    double[] state() {
        double[] state = new double[2 * COORDINATES];
        for (int i = 0; i < COORDINATES; i++) {
            state[i] = position[i];
            state[COORDINATES + i] = velocity[i];
        }
        return state;
    }

    /** The 8x8 covariance of the state, zero between different coordinates. */
    double[][] covarianceMatrix() {
        double[][] p = new double[2 * COORDINATES][2 * COORDINATES];
        for (int i = 0; i < COORDINATES; i++) {
            p[i][i] = positionVariance[i];
            p[i][COORDINATES + i] = p[COORDINATES + i][i] = covariance[i];
            p[COORDINATES + i][COORDINATES + i] = velocityVariance[i];
        }
        return p;
    }

    private static double perSecond(double perFrame, double msPerFrame) {
        return msPerFrame > 0 ? perFrame * 1000.0 / msPerFrame : 0;
    }

    /** (cx, cy, a, h) of a box. */
    private static void measure(Box box, double[] z) {
        double h = box.h();
        z[CX] = box.x() + box.w() / 2.0;
        z[CY] = box.y() + h / 2.0;
        z[ASPECT] = box.w() / h;
        z[HEIGHT] = h;
    }
}
