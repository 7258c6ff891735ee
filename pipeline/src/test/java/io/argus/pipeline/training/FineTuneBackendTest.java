package io.argus.pipeline.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.Model;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.GpuStream;
import io.argus.pipeline.config.ConfigNode;
import io.argus.pipeline.config.TrainingConfig;
import io.argus.pipeline.testing.TestMedia;
import io.argus.testkit.Budget;
import io.argus.trainer.backends.TrainingBackends;
import io.argus.trainer.cuda.CudaTrainingBackend;
import io.argus.trainer.data.SyntheticScenes;
import io.argus.trainer.train.CpuTrainingBackend;
import io.argus.trainer.train.IterationStats;
import io.argus.trainer.train.TrainingBackend;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short online fine-tune of the demo model through the pipeline's path ({@code training:} read from config, the
 * backend chosen by {@link TrainingBackends} as the trainer verticle does at start, {@link FineTune#run}), on
 * synthetic scenes: the run record says where it trained, in which precision, and the loss scaling's state. On the
 * CPU with {@code backend: cpu}; on a GPU (tag gpu) with {@code backend: auto}, which must pick CUDA in mixed
 * precision on a lowest-priority stream.
 */
@Budget(seconds = 15)
class FineTuneBackendTest {
    @TempDir
    Path tmp;

    /** What one run recorded. */
    record Ran(RunRecord record, FineTune.Result result, int streamPriority, int leastPriority) {}

    Ran fineTune(String backend, int iterations, int batch, int subdivisions) throws Exception {
        return fineTune(backend, iterations, batch, subdivisions, new JsonObject());
    }

    /** {@code more}: further keys of the training section. */
    Ran fineTune(String backend, int iterations, int batch, int subdivisions, JsonObject more) throws Exception {
        JsonObject json = new JsonObject().put("enabled", true).put("model", "demo").put("backend", backend)
                .put("iterations", iterations).put("batch", batch).put("subdivisions", subdivisions)
                .put("cpuShare", 1.0).put("threads", 1).mergeIn(more);
        TrainingConfig config = TrainingConfig.read(new ConfigNode("training", json, Map.of(), new HashSet<>(), tmp),
                List.of("demo"), tmp);
        TrainingBackends.Choice device = TrainingBackends.choose(config.backend(), "training.backend");
        SyntheticScenes.write(tmp.resolve("scenes"), 2 * batch, 5, 128, 0.25);
        Path models = TestMedia.home().resolve("config/models");
        FineTune.Inputs in = new FineTune.Inputs(models.resolve("demo.cfg"), 0, 0,
                Model.readNames(models.resolve("demo.names")), models.resolve("demo.weights"),
                tmp.resolve("scenes/train.txt"), tmp.resolve("scenes/val.txt"), tmp.resolve("candidate.weights"), 1);
        RunRecord record = new RunRecord(1, "demo", "test", "base", iterations, 0, 0, 0, 0);
        int[] priorities = {Integer.MIN_VALUE, Integer.MIN_VALUE};
        sizes.clear();
        FineTune.Result result = FineTune.run(config, device, in, new FineTune.Listener() {
            @Override
            public void onStart(TrainingBackend backend, int trainImages, int valImages) {
                record.started(backend.kind(), backend.precision(), backend.name());
                if (backend instanceof CpuTrainingBackend cpu) sizes.addAll(cpu.inputSizes());
                if (backend instanceof CudaTrainingBackend cuda) {
                    priorities[0] = cuda.streamPriority();
                    priorities[1] = GpuStream.priorityRange()[0];
                }
            }

            @Override
            public void onIteration(IterationStats s) {
                record.iteration(s);
            }
        }, () -> false);
        record.evaluated(result.before(), result.after(), result.busySeconds(), result.sleptSeconds(),
                result.lossScale(), result.skipped());
        assertTrue(Files.size(tmp.resolve("candidate.weights")) > 0, "the candidate's weights are written");
        return new Ran(record, result, priorities[0], priorities[1]);
    }

    /** The input sizes the last run's CPU backend held. */
    final List<String> sizes = new java.util.ArrayList<>();

    /**
     * Multi-scale only when configured: off, one size; on, the networks of its sizes (a run of 2 iterations is all in
     * Darknet's last 100, so the largest alone: 1.4 x 128 / 32 + 1 = 6.6 -> 7 x 32).
     */
    @Test
    void aFineTuneTrainsAtSeveralSizesOnlyWhenConfigured() throws Exception {
        fineTune("cpu", 2, 2, 1);
        assertEquals(List.of("128x128"), sizes);
        Ran r = fineTune("cpu", 2, 2, 1, new JsonObject().put("multiScale", "on"));
        assertEquals(List.of("128x128", "224x224"), sizes);
        assertEquals(2, r.record().json.getInteger("iterations"));
    }

    @Test
    void theRunRecordSaysWhereAndHowItTrained() throws Exception {
        Ran r = fineTune("cpu", 2, 2, 1);
        JsonObject json = r.record().json;
        assertEquals("cpu", json.getString("backend"), json.encode());
        assertEquals("fp32", json.getString("precision"), json.encode());
        assertTrue(json.getString("device").startsWith("cpu fp32"), json.encode());
        assertEquals(r.result().lossScale(), json.getFloat("lastLossScale"));
        assertEquals(r.result().skipped(), json.getLong("skippedSteps"));
        assertEquals(2, json.getInteger("iterations"));
    }

    @Test
    @Tag("gpu")
    void autoFineTunesOnCudaInMixedPrecisionWithALossScaleOnALowPriorityStream() throws Exception {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        Ran r = fineTune("auto", 20, 16, 4);
        JsonObject json = r.record().json;
        assertEquals("cuda", json.getString("backend"), json.encode());
        assertEquals("mixed", json.getString("precision"), json.encode());
        assertTrue(json.getFloat("lastLossScale") > 0, json.encode());
        assertTrue(json.getLong("skippedSteps") < 20, "most steps applied: " + json.encode());
        assertEquals(20, r.result().iterations());
        assertEquals(r.leastPriority(), r.streamPriority(), "the fine-tune's stream has the device's lowest priority");
        double after = r.result().after().map50();
        assertTrue(after >= 0 && after <= 1, "held-out mAP@0.5 of the candidate: " + after);
    }
}
