package io.argus.tracking;

import io.argus.detector.Box;
import org.apache.commons.math3.filter.KalmanFilter;
import org.apache.commons.math3.filter.MeasurementModel;
import org.apache.commons.math3.filter.ProcessModel;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;

/**
 * The reference for {@link KalmanBoxFilter}: ByteTrack's box filter written out as its paper states it, the full
 * 8-state model on Apache Commons Math's {@link KalmanFilter}: matrices A (constant velocity), H (the first four
 * coordinates measured), Q and R from the height. KalmanBoxFilterTest checks the fast filter against it step by step;
 * TrackerBenchmark.kalmanCommonsMath times it.
 */
public final class CommonsMathBoxFilter {
    private static final int STATE = 8;
    private static final int MEASURED = 4;
    private static final int HEIGHT = 3;
    private static final int HEIGHT_VELOCITY = 7;
    private static final double POSITION_WEIGHT = KalmanBoxFilter.POSITION_WEIGHT;
    private static final double VELOCITY_WEIGHT = KalmanBoxFilter.VELOCITY_WEIGHT;

    private static final RealMatrix TRANSITION = transition();
    private static final RealMatrix MEASUREMENT = measurement();
    /**
     * The control input of {@link #predictHoldingHeight()}: u = -vh added to h and vh after the step, which is the
     * step taken with vh set to 0 first (KalmanFilter has no setter for its state; its control input is the way in).
     */
    private static final RealMatrix HEIGHT_HOLD = heightHold();

    private final RealMatrix processNoise = new Array2DRowRealMatrix(STATE, STATE);
    private final RealMatrix measurementNoise = new Array2DRowRealMatrix(MEASURED, MEASURED);
    private final KalmanFilter filter;
    private double[] state;

    public CommonsMathBoxFilter(Box box) {
        double[] z = measurementOf(box);
        double h = z[HEIGHT];
        double[] initialDeviation = {
            2 * POSITION_WEIGHT * h, 2 * POSITION_WEIGHT * h, 1e-2, 2 * POSITION_WEIGHT * h,
            10 * VELOCITY_WEIGHT * h, 10 * VELOCITY_WEIGHT * h, 1e-5, 10 * VELOCITY_WEIGHT * h};
        RealVector initialState = new ArrayRealVector(z, new double[STATE - MEASURED]);
        RealMatrix initialCovariance = new Array2DRowRealMatrix(STATE, STATE);
        setDiagonalOfSquares(initialCovariance, initialDeviation);
        ProcessModel process = new ProcessModel() {
            @Override public RealMatrix getStateTransitionMatrix() { return TRANSITION; }
            @Override public RealMatrix getControlMatrix() { return HEIGHT_HOLD; }
            @Override public RealMatrix getProcessNoise() { return processNoise; }
            @Override public RealVector getInitialStateEstimate() { return initialState; }
            @Override public RealMatrix getInitialErrorCovariance() { return initialCovariance; }
        };
        MeasurementModel measurement = new MeasurementModel() {
            @Override public RealMatrix getMeasurementMatrix() { return MEASUREMENT; }
            @Override public RealMatrix getMeasurementNoise() { return measurementNoise; }
        };
        filter = new KalmanFilter(process, measurement);
        state = filter.getStateEstimation();
    }

    public void predict() {
        setProcessNoise();
        filter.predict();
        state = filter.getStateEstimation();
    }

    public void predictHoldingHeight() {
        setProcessNoise();
        filter.predict(new double[] {-state[HEIGHT_VELOCITY]});
        state = filter.getStateEstimation();
    }

    public void update(Box measured) {
        double h = state[HEIGHT];
        setDiagonalOfSquares(measurementNoise, POSITION_WEIGHT * h, POSITION_WEIGHT * h, 1e-1, POSITION_WEIGHT * h);
        filter.correct(measurementOf(measured));
        state = filter.getStateEstimation();
    }

    public double[] state() {
        return state.clone();
    }

    public double[][] covarianceMatrix() {
        return filter.getErrorCovariance();
    }

    private void setProcessNoise() {
        double h = state[HEIGHT];
        setDiagonalOfSquares(processNoise,
                POSITION_WEIGHT * h, POSITION_WEIGHT * h, 1e-2, POSITION_WEIGHT * h,
                VELOCITY_WEIGHT * h, VELOCITY_WEIGHT * h, 1e-5, VELOCITY_WEIGHT * h);
    }

    private static double[] measurementOf(Box box) {
        double h = box.h();
        return new double[] {box.x() + box.w() / 2.0, box.y() + h / 2.0, box.w() / h, h};
    }

    private static void setDiagonalOfSquares(RealMatrix m, double... deviations) {
        for (int i = 0; i < deviations.length; i++) m.setEntry(i, i, deviations[i] * deviations[i]);
    }

    private static RealMatrix transition() {
        RealMatrix a = new Array2DRowRealMatrix(STATE, STATE);
        for (int i = 0; i < STATE; i++) a.setEntry(i, i, 1);
        for (int i = 0; i < MEASURED; i++) a.setEntry(i, MEASURED + i, 1);
        return a;
    }

    private static RealMatrix measurement() {
        RealMatrix h = new Array2DRowRealMatrix(MEASURED, STATE);
        for (int i = 0; i < MEASURED; i++) h.setEntry(i, i, 1);
        return h;
    }

    private static RealMatrix heightHold() {
        RealMatrix b = new Array2DRowRealMatrix(STATE, 1);
        b.setEntry(HEIGHT, 0, 1);
        b.setEntry(HEIGHT_VELOCITY, 0, 1);
        return b;
    }
}
