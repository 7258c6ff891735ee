package io.argus.detector.cpu;

import io.argus.detector.darknet.ConvolutionalSpec;
import io.argus.detector.darknet.LayerSpec;
import io.argus.detector.darknet.ModelWeights;
import io.argus.detector.darknet.NetworkSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * Whether our Winograd convolution pays in a whole network, decided once per network, batch size and CPU. The tuner
 * times each layer's candidates alone, with its input hot in the caches; in a network our Winograd's transforms meet
 * colder data and hand work between threads, so a layer it wins alone may cost more in place: on yolov8n 640 at
 * batch 1 (AMD family 26 model 2, 2 threads) the seven layers the tuner gave it made the forward 7-10% slower than
 * oneDNN's convolutions alone, while on yolov4-tiny 416 it made it 4% faster. So where the tuner picked ours for some
 * layer, the network is also built without it and the two are timed in turns; the slower is dropped, and the
 * decision is kept in the tuning cache (key {@code network <fingerprint> b<batch> winograd}, value auto or off) so
 * later starts build the kept one directly.
 */
public final class WinogradInNetwork {
    /** Our Winograd is dropped only when the network without it is at least this much faster. */
    static final double MARGIN = 0.98;
    /** Each side timed for at least this long and this many forwards, in turns. */
    static final double SECONDS = 0.5;
    static final int MIN_ROUNDS = 8;

    private WinogradInNetwork() {}

    /**
     * The network for {@code options}: as {@link CpuNetwork}'s constructor makes it, except that with FP32, tuning and
     * winograd auto the network with our Winograd competes with the network without it (see the class comment).
     */
    public static CpuNetwork open(NetworkSpec spec, ModelWeights weights, int maxBatch, CpuOptions options,
                                  Int8Calibration calibration) {
        if (options.precision() != CpuPrecision.FP32 || options.winograd() != WinogradPolicy.AUTO || !options.tune()) {
            return new CpuNetwork(spec, weights, maxBatch, options, calibration);
        }
        ConvolutionTuner tuner = new ConvolutionTuner(options);
        String key = "network " + fingerprint(spec) + " b" + maxBatch + " winograd";
        String known = tuner.networkChoice(key);
        CpuOptions off = options.withWinograd(WinogradPolicy.OFF);
        if ("off".equals(known)) return new CpuNetwork(spec, weights, maxBatch, off, calibration);
        CpuNetwork auto = new CpuNetwork(spec, weights, maxBatch, options, calibration);
        if ("auto".equals(known)) return auto;
        try {
            auto.forward(maxBatch);   // the layers tune at their first use
            boolean ours = auto.convolutionChoices(maxBatch).stream()
                    .anyMatch(c -> c.implementation().startsWith("winograd|argus"));
            if (!ours) {
                tuner.rememberNetworkChoice(key, "auto");
                return auto;
            }
            CpuNetwork without = new CpuNetwork(spec, weights, maxBatch, off, calibration);
            try {
                without.forward(maxBatch);
                double[] ms = inTurns(List.of(auto, without), maxBatch);
                boolean drop = ms[1] <= MARGIN * ms[0];
                tuner.rememberNetworkChoice(key, drop ? "off" : "auto");
                if (drop) {
                    auto.close();
                    return without;
                }
                without.close();
                return auto;
            } catch (RuntimeException e) {
                without.close();
                throw e;
            }
        } catch (RuntimeException e) {
            auto.close();
            throw e;
        }
    }

    /** Median ms of a forward of each network, timed in turns (one forward of each per round). */
    static double[] inTurns(List<CpuNetwork> nets, int batch) {
        List<List<Double>> times = new ArrayList<>();
        for (int i = 0; i < nets.size(); i++) times.add(new ArrayList<>());
        long start = System.nanoTime();
        while (times.get(0).size() < MIN_ROUNDS || (System.nanoTime() - start) / 1e9 < SECONDS * nets.size()) {
            for (int i = 0; i < nets.size(); i++) {
                long t0 = System.nanoTime();
                nets.get(i).forward(batch);
                times.get(i).add((System.nanoTime() - t0) / 1e6);
            }
        }
        double[] medians = new double[nets.size()];
        for (int i = 0; i < medians.length; i++) {
            double[] t = times.get(i).stream().mapToDouble(Double::doubleValue).sorted().toArray();
            medians[i] = t[t.length / 2];
        }
        return medians;
    }

    /** What identifies a network's computation: every layer's kind, inputs, output shape and convolution geometry. */
    static String fingerprint(NetworkSpec spec) {
        StringBuilder s = new StringBuilder(spec.inputShape().toString());
        for (LayerSpec l : spec.layers()) {
            s.append('|').append(l.kind()).append(Arrays.toString(l.inputs())).append(l.output());
            if (l instanceof ConvolutionalSpec c) {
                s.append(' ').append(c.size()).append('/').append(c.strideX()).append('x').append(c.strideY())
                        .append(" p").append(c.pad()).append(" g").append(c.groups()).append(' ').append(c.activation());
            }
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
