package io.argus.pipeline.http;

import io.argus.pipeline.recording.Recordings;

import io.argus.pipeline.camera.Cameras;
import io.argus.pipeline.cluster.ClusterCamerasVerticle;
import io.argus.pipeline.events.EventQueries;
import io.argus.pipeline.events.MqttOutputVerticle;
import io.argus.pipeline.inference.InferenceVerticle;
import io.argus.pipeline.training.DatasetService;
import io.argus.pipeline.training.ModelRegistryService;
import io.argus.pipeline.training.TrainingService;
import java.util.List;

/**
 * The in-process services the REST API answers from, handed over by the composition root (app/ArgusApp).
 *
 * @param cameras        this node's cameras, or in a cluster the cluster-wide list
 * @param clusterCameras the cluster-wide list with its members ({@code GET /api/nodes}); null on a single node
 * @param mqtt           null when the MQTT output is off
 * @param dataset        null, with {@code training} and {@code registry}, when online training is off
 */
public record ApiServices(List<InferenceVerticle> models, Cameras cameras, ClusterCamerasVerticle clusterCameras,
                          EventQueries events, MqttOutputVerticle mqtt, DatasetService dataset, TrainingService training,
                          ModelRegistryService registry, Recordings recordings) {
    public ApiServices {
        models = List.copyOf(models);
        if (recordings == null) recordings = Recordings.OFF;
    }
}
