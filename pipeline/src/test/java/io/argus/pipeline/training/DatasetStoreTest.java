package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.Box;
import io.argus.detector.Detection;
import io.argus.testkit.Budget;
import io.argus.trainer.data.Dataset;
import io.argus.trainer.loss.Truth;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dataset store on disk: frames in Darknet's layout that the trainer core reads back, the held-out split, labels,
 * eviction of unlabelled frames, and pinned frames whose files outlive a delete until the run ends.
 */
@Budget(seconds = 5)
class DatasetStoreTest {
    static final List<String> NAMES = List.of("circle", "square");

    @TempDir
    Path dir;

    static BgrImage image(int w, int h, int seed) {
        byte[] px = new byte[w * h * 3];
        for (int i = 0; i < px.length; i++) px[i] = (byte) (i * 31 + seed);
        return BgrImage.of(w, h, px);
    }

    static Detection box(int cls, float x, float y, float w, float h) {
        return new Detection(cls, NAMES.get(cls), 1f, new Box(x, y, w, h));
    }

    DatasetStore store(int valEvery, int max) {
        return DatasetStore.open(dir, NAMES, valEvery, max);
    }

    CollectedFrame add(DatasetStore s, int i) {
        return s.add("cam", i, i * 40.0, 1_000_000.0 + i, image(40, 20, i), 0.5, "v1",
                List.of(box(0, 1, 2, 3, 4)), null);
    }

    @Test
    void framesLabelsAndSplitsAreStoredInDarknetsLayoutAndReadBack() {
        DatasetStore s = store(3, 100);
        List<CollectedFrame> fs = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) fs.add(add(s, i));
        assertEquals(List.of("val", "train", "train", "val", "train", "train"), fs.stream().map(CollectedFrame::split).toList(),
                "every 3rd kept frame, the first included, is held out");
        assertEquals("cam-1000000", fs.get(0).id());
        assertFalse(fs.get(0).labeled());
        assertTrue(Files.isRegularFile(s.image(fs.get(0).id())));

        long revision = s.labelsRevision();
        CollectedFrame labelled = s.label(fs.get(1).id(), List.of(box(1, 10, 5, 20, 10)), "annotation", 5);
        assertEquals("annotation", labelled.labelSource());
        assertTrue(s.labelsRevision() > revision);
        s.label(fs.get(0).id(), List.of(), "annotation", 6); // held out, nothing to detect

        DatasetStore.Snapshot snap = s.pin();
        assertEquals(List.of(s.image(fs.get(1).id())), snap.train());
        assertEquals(List.of(s.image(fs.get(0).id())), snap.val());
        assertEquals(0, snap.valObjects());
        Path list = dir.resolve("train.txt");
        writeList(list, snap.train());
        Dataset d = Dataset.fromList(list, 2);
        Truth t = d.sample(0).truths().get(0);
        assertEquals(1, t.classId());
        assertEquals(0.5f, t.x(), 1e-6f);   // (10 + 20/2) / 40
        assertEquals(0.5f, t.y(), 1e-6f);   // (5 + 10/2) / 20
        assertEquals(0.5f, t.w(), 1e-6f);
        assertEquals(0.5f, t.h(), 1e-6f);
        assertEquals(image(40, 20, 1).at(7, 3, 2), d.image(0).at(7, 3, 2), "pixels are stored losslessly");
        s.unpin();

        DatasetStore again = store(3, 100);
        assertEquals(6, again.size());
        assertEquals(labelled, again.get(labelled.id()));
        assertEquals(s.labelsRevision(), again.labelsRevision());
        assertEquals("val", add(again, 6).split(), "the split counter survives a restart (7th frame)");
        JsonObject stats = again.stats().toJson();
        assertEquals(2, stats.getInteger("labeled"));
        assertEquals(1, stats.getInteger("trainFrames"));
        assertEquals(1, stats.getInteger("valFrames"));
        assertEquals(1, stats.getJsonArray("classes").getJsonObject(1).getInteger("train"));
    }

    @Test
    void aFullStoreEvictsTheOldestUnlabelledFrameAndKeepsLabelledOnes() {
        DatasetStore s = store(4, 3);
        CollectedFrame a = add(s, 0), b = add(s, 1), c = add(s, 2);
        s.label(a.id(), List.of(box(0, 1, 1, 5, 5)), "annotation", 1);
        CollectedFrame d = add(s, 3);
        assertEquals(3, s.size());
        assertNull(s.get(b.id()), "the oldest unlabelled frame made room");
        assertFalse(Files.exists(s.image(b.id())));
        s.label(c.id(), List.of(), "annotation", 2);
        s.label(d.id(), List.of(), "annotation", 3);
        assertTrue(s.full());
        assertNull(add(s, 4), "all labelled: nothing is kept");
    }

    @Test
    void aPinnedFrameKeepsItsFilesUntilTheRunEnds() {
        DatasetStore s = store(4, 10);
        CollectedFrame a = add(s, 0);
        s.label(a.id(), List.of(box(0, 1, 1, 5, 5)), "annotation", 1);
        s.pin();
        assertTrue(s.delete(a.id()));
        assertNull(s.get(a.id()));
        assertTrue(Files.exists(s.image(a.id())), "the running fine-tune may still read it");
        s.unpin();
        assertFalse(Files.exists(s.image(a.id())));
        assertFalse(Files.exists(dir.resolve("labels").resolve(a.id() + ".txt")));
        assertFalse(s.delete(a.id()));
    }

    static void writeList(Path list, List<Path> images) {
        try {
            Files.write(list, images.stream().map(Path::toString).toList());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
