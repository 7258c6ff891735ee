package io.argus.recording;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Motion: a moving object is, sensor noise and a whole new scene (lights on) are not. */
@Budget(seconds = 5)
class MotionDetectorTest {
    static final int W = 640;
    static final int H = 360;

    @Test
    void aStillPictureWithNoiseDoesNotMove() {
        MotionDetector m = new MotionDetector(25, 0.005);
        Random random = new Random(1);
        for (int i = 0; i < 50; i++) assertFalse(m.moved(scene(random, 12, -1, 100), W, H, W * 3), "frame " + i);
    }

    @Test
    void anObjectCrossingThePictureMoves() {
        MotionDetector m = new MotionDetector(25, 0.005);
        Random random = new Random(2);
        for (int i = 0; i < 10; i++) m.moved(scene(random, 6, -1, 100), W, H, W * 3);
        int moved = 0;
        for (int i = 0; i < 20; i++) if (m.moved(scene(random, 6, 20 * i, 100), W, H, W * 3)) moved++;
        assertTrue(moved >= 19, moved + " of 20 frames with a 40x40 object crossing");
    }

    @Test
    void aSmallChangeUnderTheAreaIsNotMotion() {
        MotionDetector m = new MotionDetector(25, 0.05);   // 5 % of the picture at least
        Random random = new Random(3);
        for (int i = 0; i < 10; i++) m.moved(scene(random, 6, -1, 100), W, H, W * 3);
        for (int i = 0; i < 20; i++) assertFalse(m.moved(scene(random, 6, 20 * i, 100), W, H, W * 3), "frame " + i);
    }

    @Test
    void lightsSwitchedOnAreANewSceneNotMotion() {
        MotionDetector m = new MotionDetector(25, 0.005);
        Random random = new Random(4);
        for (int i = 0; i < 10; i++) m.moved(scene(random, 6, -1, 60), W, H, W * 3);
        for (int i = 0; i < 10; i++) assertFalse(m.moved(scene(random, 6, -1, 200), W, H, W * 3), "frame " + i);
        assertTrue(m.moved(scene(random, 6, 300, 200), W, H, W * 3), "an object in the new scene");
    }

    @Test
    void settingsOutOfRangeAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new MotionDetector(0, 0.01));
        assertThrows(IllegalArgumentException.class, () -> new MotionDetector(25, 0));
        assertThrows(IllegalArgumentException.class, () -> new MotionDetector(25, 1.5));
    }

    /** A grey scene of {@code level} with noise of +-{@code noise}, and a bright 40x40 object at x when x >= 0. */
    static ByteBuffer scene(Random random, int noise, int x, int level) {
        ByteBuffer b = ByteBuffer.allocate(W * H * 3);
        for (int r = 0; r < H; r++) {
            for (int c = 0; c < W; c++) {
                int v = c >= x && x >= 0 && c < x + 40 && r >= 160 && r < 200 ? 250 : level + random.nextInt(2 * noise + 1) - noise;
                b.put((byte) v).put((byte) v).put((byte) v);
            }
        }
        return b.flip();
    }
}
