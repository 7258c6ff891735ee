package io.argus.pipeline.frames;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageCodec;

/**
 * Event-bus codec for {@link VideoFrame}: local delivery hands over the same object (no copy of the pixels);
 * frames never cross the cluster, so the wire methods refuse.
 */
public final class FrameCodec implements MessageCodec<VideoFrame, VideoFrame> {
    public static final String NAME = "argus.frame";

    /** Delivery options for frames: this codec, this node only. */
    public static final DeliveryOptions LOCAL = new DeliveryOptions().setCodecName(NAME).setLocalOnly(true);

    /** Registers the codec once per Vert.x instance. */
    public static void register(EventBus bus) {
        bus.registerCodec(new FrameCodec());
    }

    @Override
    public void encodeToWire(Buffer buffer, VideoFrame frame) {
        throw new UnsupportedOperationException("video frames stay on their node; send detections instead");
    }

    @Override
    public VideoFrame decodeFromWire(int pos, Buffer buffer) {
        throw new UnsupportedOperationException("video frames stay on their node");
    }

    @Override
    public VideoFrame transform(VideoFrame frame) { return frame; }

    @Override
    public String name() { return NAME; }

    @Override
    public byte systemCodecID() { return -1; }
}
