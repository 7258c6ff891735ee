package io.argus.tracking;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.Box;
import io.argus.testkit.Budget;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The constant-velocity box filter: the same numbers as the 8-state model on Commons Math's KalmanFilter; where it
 * predicts a box, what velocity it learns, in which units.
 */
@Budget(seconds = 5)
class KalmanBoxFilterTest {

    /** A 40x80 box whose centre starts at (100, 200) and moves (vx, vy) pixels per frame. */
    private static Box movingBox(int frame, double vx, double vy) {
        return new Box((float) (80 + vx * frame), (float) (160 + vy * frame), 40, 80);
    }

    @Test
    void startsAtTheBoxAtRest() {
        KalmanBoxFilter filter = new KalmanBoxFilter(new Box(10, 20, 30, 60));
        assertEquals(new Box(10, 20, 30, 60), filter.box());
        assertEquals(0, filter.velocityXPerFrame());
        filter.predict();
        assertEquals(new Box(10, 20, 30, 60), filter.box(), "no velocity yet: it stays");
    }

    @Test
    void velocityConvergesToTheBoxVelocity() {
        KalmanBoxFilter filter = new KalmanBoxFilter(movingBox(0, 3, -2));
        for (int f = 1; f <= 60; f++) {
            filter.predict();
            filter.update(movingBox(f, 3, -2));
        }
        assertEquals(3, filter.velocityXPerFrame(), 0.05);
        assertEquals(-2, filter.velocityYPerFrame(), 0.05);
    }

    @Test
    void aConstantVelocityBoxIsPredictedToWhereItWillBe() {
        KalmanBoxFilter filter = new KalmanBoxFilter(movingBox(0, 5, 1));
        for (int f = 1; f <= 30; f++) {
            filter.predict();
            filter.update(movingBox(f, 5, 1));
        }
        for (int f = 31; f <= 40; f++) filter.predict();  // ten frames unseen
        Box expected = movingBox(40, 5, 1);
        Box predicted = filter.box();
        assertEquals(expected.x(), predicted.x(), 1.5, "50 px further along x");
        assertEquals(expected.y(), predicted.y(), 1.0);
        assertEquals(expected.w(), predicted.w(), 0.5);
        assertEquals(expected.h(), predicted.h(), 0.5);
    }

    @Test
    void velocityInPixelsPerSecondUsesTheFrameInterval() {
        KalmanBoxFilter filter = new KalmanBoxFilter(movingBox(0, 4, -2));
        for (int f = 1; f <= 60; f++) {
            filter.predict();
            filter.update(movingBox(f, 4, -2));
        }
        // 4 px/frame at 25 frames/s (40 ms apart) is 100 px/s
        assertEquals(100, filter.velocityX(40), 2);
        assertEquals(-50, filter.velocityY(40), 2);
        assertEquals(filter.velocityXPerFrame() * 25, filter.velocityX(40), 1e-9);
        assertEquals(0, filter.velocityX(0), "interval unknown");
    }

    @Test
    void holdingHeightKeepsAnUnseenBoxSizeButMovesIt() {
        // a box coming nearer: it grows one pixel of height a frame while its centre moves right 3 px a frame
        KalmanBoxFilter growing = new KalmanBoxFilter(new Box(0, 0, 40, 80));
        for (int f = 1; f <= 40; f++) {
            float w = 40 + f / 2f;
            growing.predict();
            growing.update(new Box(20 + 3 * f - w / 2, 0, w, 80 + f));
        }
        double heightSeen = growing.box().h();
        double xSeen = growing.box().x() + growing.box().w() / 2;
        for (int f = 0; f < 10; f++) growing.predictHoldingHeight();
        assertEquals(heightSeen, growing.box().h(), 1e-6, "the height's velocity was zeroed");
        double xNow = growing.box().x() + growing.box().w() / 2;
        assertEquals(30, xNow - xSeen, 1.5, "the centre goes on at 3 px/frame");
    }

    @Test
    void plainPredictionLetsTheHeightGrowOn() {
        KalmanBoxFilter growing = new KalmanBoxFilter(new Box(0, 0, 40, 80));
        for (int f = 1; f <= 40; f++) {
            growing.predict();
            growing.update(new Box(0, 0, 40 + f / 2f, 80 + f));
        }
        double heightSeen = growing.box().h();
        for (int f = 0; f < 10; f++) growing.predict();
        assertEquals(heightSeen + 10, growing.box().h(), 1.0);
    }

    @Test
    void aNewFilterFollowsItsMeasurementsClosely() {
        // the first correction of a young track trusts the detection more than its at-rest guess
        KalmanBoxFilter filter = new KalmanBoxFilter(new Box(100, 100, 40, 80));
        filter.predict();
        filter.update(new Box(110, 100, 40, 80));
        double cx = filter.box().x() + 20;
        assertTrue(cx > 125 && cx <= 130, "centre moved most of the way from 120 to 130: " + cx);
        assertTrue(filter.velocityXPerFrame() > 0, "and learnt some velocity: " + filter.velocityXPerFrame());
    }

    @Test
    void staysStableOverALongRun() {
        // thousands of steps with lost stretches: the covariance stays usable (Cholesky would throw otherwise)
        KalmanBoxFilter filter = new KalmanBoxFilter(movingBox(0, 1, 1));
        for (int f = 1; f <= 5000; f++) {
            if (f % 100 < 30) {
                filter.predictHoldingHeight();
            } else {
                filter.predict();
                filter.update(new Box(80 + f % 400, 160 + f % 300, 40, 80));
            }
        }
        assertTrue(Double.isFinite(filter.velocityXPerFrame()));
        assertEquals(80, filter.box().h(), 1);
    }

    @Test
    void agreesWithCommonsMathsKalmanFilterStepByStep() {
        // a box wandering with noisy detections, lost now and then (height held), growing and shrinking
        SplittableRandom random = new SplittableRandom(15);
        Box start = new Box(300, 200, 50, 120);
        KalmanBoxFilter filter = new KalmanBoxFilter(start);
        CommonsMathBoxFilter reference = new CommonsMathBoxFilter(start);
        double x = 300, y = 200, w = 50, h = 120;
        for (int step = 0; step < 2000; step++) {
            boolean lost = random.nextInt(4) == 0;
            if (lost) {
                filter.predictHoldingHeight();
                reference.predictHoldingHeight();
            } else {
                filter.predict();
                reference.predict();
            }
            x += random.nextGaussian() * 3;
            y += random.nextGaussian() * 2;
            h = Math.max(20, h + random.nextGaussian());
            w = Math.max(10, w + random.nextGaussian() * 0.5);
            if (!lost || random.nextBoolean()) {
                Box seen = new Box((float) x, (float) y, (float) w, (float) h);
                filter.update(seen);
                reference.update(seen);
            }
            assertClose(reference.state(), filter.state(), "state at step " + step);
            double[][] expected = reference.covarianceMatrix();
            double[][] actual = filter.covarianceMatrix();
            for (int r = 0; r < expected.length; r++) {
                assertClose(expected[r], actual[r], "covariance row " + r + ", step " + step);
            }
        }
    }

    private static void assertClose(double[] expected, double[] actual, String what) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-9 * Math.max(1, Math.abs(expected[i])), what + ", element " + i);
        }
    }
}
