package io.argus.pipeline.video;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.argus.detector.BgrImage;
import io.argus.detector.cuda.Nv12Input;
import io.argus.detector.post.Preprocess;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.DeviceContext;
import io.argus.gpu.GpuBuffer;
import io.argus.gpu.GpuStream;
import io.argus.gpu.TensorView;
import io.argus.gpu.Transfers;
import io.argus.pipeline.testing.TestMedia;
import io.argus.pipeline.video.nvdec.NvdecDecoder;
import io.argus.recording.PacketSink;
import io.argus.recording.Segment;
import io.argus.recording.SegmentProbe;
import io.argus.recording.SegmentWriter;
import io.argus.recording.StorageLayout;
import io.argus.testkit.Budget;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.ffmpeg.avcodec.AVCodecParameters;
import org.bytedeco.ffmpeg.avcodec.AVPacket;
import org.bytedeco.ffmpeg.avutil.AVRational;
import org.bytedeco.ffmpeg.global.avutil;
import org.bytedeco.javacv.FFmpegFrameGrabber;
import org.bytedeco.javacv.Frame;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The same H.264 file decoded by NVDEC (surfaces converted on the GPU by kernels/nv12.cu into the FP16 input
 * tensor) and by the CPU path (FFmpeg software decode to BGR24, then post.Preprocess): the network inputs agree
 * within the CPU path's swscale rounding and chroma filtering plus FP16. Skips without CUDA or when this host's
 * NVDEC does not take the stream (the refusal is printed).
 */
@Tag("gpu")
@Budget(seconds = 10)
class GpuNvdecDecodeTest {
    static final int FRAMES = 8;
    static final int NET = 416;

    @Test
    void nvdecMatchesCpuDecode() throws Exception {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        Path video = TestMedia.shapes(25);
        DeviceContext ctx = DeviceContext.of(0);
        long imageStride = 8L * NET * NET;
        List<short[]> gpu = new ArrayList<>();
        try (GpuBuffer input = GpuBuffer.device(2 * imageStride, "test input")) {
            Nv12Input convert = new Nv12Input(ctx, TensorView.own(input.address(), 3, NET, NET), true);
            NvdecDecoder decoder;
            try {
                decoder = NvdecDecoder.open("test", 0, video.toString(), null);
            } catch (NvdecRefusal e) {
                assumeTrue(false, e.getMessage());
                return;
            }
            try (decoder) {
                for (int i = 0; i < FRAMES; i++) {
                    NvdecDecoder.HeldPicture got;
                    try {
                        got = decoder.next();
                    } catch (NvdecRefusal e) {
                        assumeTrue(e.reason() != NvdecRefusal.Reason.STREAM_REFUSED, e.getMessage());
                        throw e;
                    }
                    assertTrue(got != null, "NVDEC ended after " + i + " frames");
                    try (got) {
                        GpuStream s = decoder.stream();
                        convert.stage(got.surface(), 0, s);
                        s.synchronize();
                    }
                    gpu.add(Transfers.downloadHalves(input.address(), imageStride));
                }
            }
        }

        List<FloatBuffer> cpu = new ArrayList<>();
        try (FFmpegFrameGrabber g = new FFmpegFrameGrabber(video.toFile())) {
            g.setPixelFormat(avutil.AV_PIX_FMT_BGR24);
            g.start();
            Preprocess pre = new Preprocess();
            while (cpu.size() < FRAMES) {
                Frame f = g.grabImage();
                assertTrue(f != null, "CPU decode ended early");
                ByteBuffer px = (ByteBuffer) f.image[0];
                BgrImage im = new BgrImage(f.imageWidth, f.imageHeight, f.imageStride, px);
                FloatBuffer out = FloatBuffer.allocate(3 * NET * NET);
                pre.write(im, NET, NET, true, out, 0);
                cpu.add(out);
            }
        }

        int plane = NET * NET;
        for (int i = 0; i < FRAMES; i++) {
            double sum = 0;
            float worst = 0;
            for (int p = 0; p < plane; p++) {
                for (int c = 0; c < 3; c++) {
                    float d = Math.abs(Float.float16ToFloat(gpu.get(i)[p * 8 + c]) - cpu.get(i).get(c * plane + p));
                    sum += d;
                    worst = Math.max(worst, d);
                }
            }
            double mean = sum / (3.0 * plane);
            System.out.printf("frame %d: NVDEC vs CPU network input, mean |diff| %.5f, max %.4f%n", i, mean, worst);
            // the CPU path's swscale (yuv420p -> BGR24, JavaCV's default flags) filters chroma and rounds its own
            // way; edges of coloured shapes differ by more than a byte, flat areas by at most about one
            assertTrue(mean <= 2.0 / 255, "frame " + i + ": mean difference " + mean);
            assertTrue(worst <= 40f / 255, "frame " + i + ": max difference " + worst);
        }
        assertEquals(FRAMES, gpu.size());
    }

    /**
     * NVDEC's connection hands every video packet to the recorder before decoding it, with the stream's parameters
     * first: segments written from them (stream copy) hold exactly the source's packets and start on a keyframe,
     * while the same connection decodes every picture.
     */
    @Test
    void everyPacketReachesTheRecorderAndItsSegmentsHoldTheSource() throws Exception {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        Path video = TestMedia.shapes(25);
        long sourcePackets = SegmentProbe.read(video).packets();
        Path dir = java.nio.file.Files.createTempDirectory("argus-nvdec-recording");
        StorageLayout layout = new StorageLayout(dir);
        List<Segment> closed = new ArrayList<>();
        SegmentWriter.Listener listener = new SegmentWriter.Listener() {
            @Override public void opened(Segment s) {}

            @Override public void closed(Segment s) { closed.add(s); }
        };
        SegmentWriter[] writer = {null};
        long[] handed = {0};
        PacketSink sink = new PacketSink() {
            @Override public void streamStarted(AVCodecParameters parameters, AVRational timeBase) {
                writer[0] = new SegmentWriter("nvdec", layout, parameters, timeBase, 2_000, listener);
            }

            @Override public void packet(AVPacket packet, long wallMs) {
                handed[0]++;
                try {
                    writer[0].write(packet, wallMs);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }

            @Override public void streamEnded() {}
        };
        NvdecDecoder decoder;
        try {
            decoder = NvdecDecoder.open("test", 0, video.toString(), null, sink);
        } catch (NvdecRefusal e) {
            assumeTrue(false, e.getMessage());
            return;
        }
        long pictures = 0;
        try (decoder) {
            while (true) {
                NvdecDecoder.HeldPicture got = decoder.next();
                if (got == null) break;
                got.close();
                pictures++;
            }
            assertEquals(handed[0], decoder.videoPackets(), "every video packet read was handed on");
        }
        writer[0].close();
        long written = 0;
        for (Segment s : closed) {
            SegmentProbe.Contents c = SegmentProbe.read(layout.file(s.name()));
            assertTrue(c.startsWithKeyframe(), s.name() + " starts with a keyframe");
            assertEquals(s.packets(), c.packets(), s.name());
            written += c.packets();
        }
        System.out.printf("NVDEC: %d packets in the source, %d handed to the recorder, %d in %d segments, %d pictures decoded%n",
                sourcePackets, handed[0], written, closed.size(), pictures);
        assertEquals(sourcePackets, handed[0]);
        assertEquals(sourcePackets, written);
        assertEquals(sourcePackets, pictures, "one picture per packet");
    }

    /**
     * More decoders open at once than JavaCPP has thunks for one callback class (10): every decoder must still get
     * CUDA surfaces (the format callback is shared; one per decoder crashed FFmpeg at the 11th), and decoders opened
     * and closed one after another must not use them up either.
     */
    @Test
    void manyDecodersAtOnceAndOneAfterAnother() throws Exception {
        assumeTrue(CudaRuntime.available(), () -> "no CUDA: " + CudaRuntime.problem());
        String video = TestMedia.shapes(25).toString();
        List<NvdecDecoder> open = new ArrayList<>();
        try {
            for (int i = 0; i < 16; i++) {
                try {
                    open.add(NvdecDecoder.open("many" + i, 0, video, null));
                } catch (NvdecRefusal e) {
                    assumeTrue(i > 0, e.getMessage());   // no NVDEC at all: skip; a later refusal is a failure
                    throw e;
                }
            }
            int[] pictures = new int[open.size()];
            for (int i = 0; i < open.size(); i++) {
                try (NvdecDecoder.HeldPicture p = open.get(i).next()) {
                    assertTrue(p != null, "decoder " + i);
                    pictures[i]++;
                }
            }
            for (int i = 0; i < pictures.length; i++) assertEquals(1, pictures[i], "decoder " + i);
        } finally {
            for (NvdecDecoder d : open) d.close();
        }
        for (int i = 0; i < 12; i++) {
            try (NvdecDecoder d = NvdecDecoder.open("again" + i, 0, video, null)) {
                NvdecDecoder.HeldPicture p = d.next();
                assertTrue(p != null, "decoder opened after " + i + " closed");
                p.close();
            }
        }
    }
}
