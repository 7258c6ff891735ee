package io.argus.tools.cli;

import io.argus.detector.BgrImage;
import io.argus.detector.DetectParams;
import io.argus.detector.Model;
import io.argus.pipeline.cli.CudaSystemProperties;
import io.argus.pipeline.cli.ModelOptions;
import io.argus.pipeline.cli.ProjectPaths;
import io.argus.tools.detector.CudaBench;
import io.argus.tools.detector.GpuScalingBench;
import io.argus.tools.detector.HostFrames;
import io.argus.detector.cpu.CpuBackend;
import io.argus.detector.cpu.CpuInfo;
import io.argus.detector.cpu.CpuNetwork;
import io.argus.detector.cpu.CpuOptions;
import io.argus.detector.cpu.CpuPrecision;
import io.argus.detector.cpu.Int8Calibration;
import io.argus.detector.cpu.OneDnnInfo;
import io.argus.detector.cpu.WinogradPolicy;
import io.argus.detector.cpu.WinogradInNetwork;
import io.argus.detector.cuda.CudaBackend;
import io.argus.detector.cuda.CudaOptions;
import io.argus.detector.cuda.GpuWorkers;
import io.argus.detector.darknet.WeightsFile;
import io.argus.detector.onnx.OnnxInput;
import io.argus.detector.onnx.OpenVinoNode;
import io.argus.detector.post.Preprocess;
import io.argus.gpu.CudaRuntime;
import io.argus.gpu.MemoryMode;
import io.argus.tools.peers.DarknetPeer;
import io.argus.tools.peers.OnnxRuntimePeer;
import io.argus.tools.peers.OpenCvPeer;
import io.argus.tools.peers.OpenVinoPeer;
import io.argus.tools.peers.Peer;
import io.argus.detector.onnx.OnnxHead;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.IntConsumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code argus bench}: times our network forward and, with {@code --vs}, a peer on the same cfg, weights and input
 * in the same run. Prints ms/image per side and the ratio ours/peer last.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, subcommands = {BenchPipelineCommand.class, BenchRecordCommand.class, BenchTrainCommand.class, BenchLoaderCommand.class, BenchClusterCommand.class, BenchClusterSoakCommand.class, BenchRooflineCommand.class, BenchForwardsCommand.class},
        description = {"Benchmark the detector (and a peer in the same run).", "Subcommands benchmark the live pipeline and training."})
final class BenchCommand implements Callable<Integer> {
    @Mixin
    ModelOptions model = new ModelOptions();

    @Option(names = "--backend", defaultValue = "cpu", description = "cpu (default) or cuda")
    String backend;

    @Option(names = "--memory", defaultValue = "device,unified", split = ",",
            description = "cuda: memory modes timed end to end (device, unified, auto)")
    List<String> memory;

    @Option(names = "--batch", defaultValue = "1", split = ",", description = "batch sizes, e.g. 1,8")
    int[] batches;

    @Option(names = "--vs", split = ",", description = "peers timed in the same run: opencv, onnxruntime (our exported "
            + "model in onnxruntime-node, scripts/onnxruntime), openvino (the same model in openvino-node's CPU plugin, "
            + "scripts/openvino, FP32: INFERENCE_PRECISION_HINT f32), openvino-best (the same at the CPU plugin's "
            + "default precision: bf16 where the CPU has AVX512_BF16 or AMX, else f32), darknet; several: "
            + "opencv,onnxruntime,openvino")
    List<String> vs;

    @Option(names = "--precision", defaultValue = "fp32", split = ",",
            description = "cpu: fp32 (default), bf16 (AVX512_BF16 or AMX), int8 (VNNI or AMX; calibrated), or several: fp32,bf16,int8")
    List<String> precisions;

    @Option(names = "--calibration", description = "cpu int8: sample frames for the activation ranges, a folder of "
            + "images or a list file (default: config/samples)")
    Path calibration;

    @Option(names = "--no-tune", description = "cpu: oneDNN's first choice of convolution instead of timing each")
    boolean noTune;

    @Option(names = "--tuning-dir", description = "cpu: where convolution choices are kept per CPU "
            + "(default: $XDG_CACHE_HOME/argus/cpu-tuning, as argus run's cacheDir)")
    Path tuningDir;

    @Option(names = "--winograd", defaultValue = "auto", split = ",", description = "cpu fp32: our Winograd "
            + "convolution for 3x3 stride-1 layers (as models[].cpu.winograd): auto (a candidate the tuner times, "
            + "default), off, or f2x2 / f4x4 forced on every such layer; several, e.g. off,f2x2,f4x4: one network each, "
            + "timed in turns (one forward each, round after round), so a machine whose speed drifts slows all alike; "
            + "other precisions ignore it")
    List<String> winograd;

    @Option(names = "--layer-times", description = "cpu: after timing, each convolution's median time over this many "
            + "layer-by-layer passes, its implementation and (when timed in this run) what the tuner measured")
    int layerTimes;

    @Option(names = "--gpus", split = ",", description = "cuda: inference scaling over GPUs 0..N-1 for each N, e.g. "
            + "1,2,4: whole detect calls as a camera pipeline makes them (frames uploaded from host memory, preprocess, "
            + "forward, decode, NMS) kept in flight on one worker per GPU; per N total and per-GPU images/s and the "
            + "scaling over N x one GPU's, one line each: argus-gpus model=... batch=... gpus=N images/s=... "
            + "per_gpu=... scaling=... (memory mode: the first of --memory)")
    int[] gpus;

    @Option(names = "--in-flight", defaultValue = "3", description = "cuda --gpus: batches outstanding per GPU")
    int inFlight;

    @Option(names = "--frames", split = ",", defaultValue = "heap", description = "cuda: where the detect calls' host "
            + "frames lie, each in its own buffer: heap (Java arrays, copied through pinned staging) and/or pinned "
            + "(page-locked, as a camera pool allocates them for a model on a GPU: uploaded without staging)")
    List<String> frames;

    @Option(names = "--seconds", defaultValue = "5", description = "minimum timed seconds per side and batch")
    double seconds;

    @Option(names = "--rounds", defaultValue = "1", description = "cpu: the whole measurement of each batch (ours, then "
            + "each peer) repeated this many times in alternation, so that a drift of a shared machine's speed falls on "
            + "both sides; with more than one, each ratio is printed per round and as their median")
    int rounds;

    @Option(names = "--min-iterations", defaultValue = "5", description = "minimum timed iterations")
    int minIterations;

    @Option(names = "--warmup", defaultValue = "2", description = "untimed iterations first (--gpus: batches per GPU)")
    int warmup;

    @Option(names = "--image", description = "input image (default: config/samples/dog.jpg)")
    Path image;

    @Override
    public Integer call() throws Exception {
        if (gpus != null && !backend.equalsIgnoreCase("cuda")) {
            throw new IllegalArgumentException("--gpus measures GPUs: it needs --backend cuda");
        }
        if (backend.equalsIgnoreCase("cuda")) return cuda();
        if (!backend.equalsIgnoreCase("cpu")) {
            throw new IllegalArgumentException("--backend " + backend + ": expected cpu or cuda");
        }
        List<WinogradPolicy> winos = winograd.stream().map(WinogradPolicy::parse).distinct().toList();
        if (layerTimes < 0) throw new IllegalArgumentException("--layer-times " + layerTimes + ": expected a count >= 0");
        Model m = model.load(false);
        List<CpuPrecision> kinds = precisions.stream().map(CpuPrecision::parse).toList();
        List<String> peers = vs == null ? List.of() : vs.stream().map(v -> v.strip().toLowerCase(Locale.ROOT)).toList();
        for (String p : peers) {
            if (!List.of("opencv", "onnxruntime", "openvino", "openvino-best", "darknet").contains(p)) {
                throw new IllegalArgumentException("--vs " + p + ": expected opencv, onnxruntime, openvino, "
                        + "openvino-best or darknet");
            }
        }
        CpuInfo cpu = CpuInfo.current();
        System.out.println("cpu: " + cpu.describe() + ", " + Runtime.getRuntime().availableProcessors() + " threads; ISA "
                + String.join(" ", cpu.relevantFlags()) + "; " + OneDnnInfo.describe() + "; OpenMP waits: "
                + openMpWaits());
        System.out.println("model: " + m.spec() + (OnnxHead.in(m) != null ? ", " + OnnxHead.in(m).family().configName() + " head"
                : model.weights == null ? ", random weights (seed " + model.seed + ")" : ""));
        Path weightsFile = model.weights;
        if (!peers.isEmpty() && weightsFile == null && OnnxHead.in(m) == null) {
            weightsFile = Files.createTempFile("argus-bench", ".weights");
            weightsFile.toFile().deleteOnExit();
            WeightsFile.write(weightsFile, m.spec(), m.weights());
        }
        Path img = image != null ? image : ProjectPaths.sample("dog.jpg");
        BgrImage picture = BgrImage.read(img);
        Path tuning = tuningDir != null ? tuningDir : defaultTuningDir();
        Int8Calibration int8 = null;
        Path from = calibration != null ? calibration : ProjectPaths.sample("dog.jpg").getParent();
        if (kinds.contains(CpuPrecision.INT8)) {
            int8 = Int8Calibration.measure(m,
                    Int8Calibration.readImages(from, CpuOptions.CALIBRATION_FRAMES), new CpuOptions(CpuPrecision.FP32, !noTune, tuning));
            System.out.println("int8: activation ranges from " + int8.samples() + " frames of " + from);
        }
        if (rounds < 1) throw new IllegalArgumentException("--rounds " + rounds + ": expected a count >= 1");
        java.util.Map<String, List<double[]>> byRound = new java.util.LinkedHashMap<>();
        for (int batch : batches) for (int round = 1; round <= rounds; round++) {
            if (rounds > 1) System.out.println("round " + round + " of " + rounds + ", batch " + batch + ":");
            boolean first = round == 1;
            java.util.Map<String, Double> ours = new java.util.LinkedHashMap<>();
            for (CpuPrecision precision : kinds) {
                List<WinogradPolicy> variants = precision == CpuPrecision.FP32 ? winos : List.of(WinogradPolicy.AUTO);
                List<CpuNetwork> nets = new ArrayList<>();
                try {
                    for (WinogradPolicy w : variants) {
                        CpuOptions o = new CpuOptions(precision, !noTune, tuning, precision == CpuPrecision.INT8 ? from : null, w);
                        // one variant: the network as the product builds it (our Winograd kept where the whole network
                        // gains by it); several: each as asked, timed in turns
                        nets.add(variants.size() == 1 ? WinogradInNetwork.open(m.spec(), m.weights(), batch, o, int8)
                                : new CpuNetwork(m.spec(), m.weights(), batch, o, int8));
                        fill(nets.getLast(), m, picture, batch);
                    }
                    if (nets.size() == 1) {
                        ours.put(precision.toString(), time("argus-" + precision, batch, forward(nets.get(0), m)));
                    } else {
                        List<String> labels = variants.stream().map(w -> precision + " winograd " + w.label()).toList();
                        double[] ms = timeInTurns(labels, batch, nets);
                        for (int i = 0; i < ms.length; i++) {
                            ours.put(labels.get(i), ms[i]);
                            if (i > 0) {
                                byRound.computeIfAbsent(String.format(Locale.ROOT, "batch %d: ratio ours(%s)/ours(%s)",
                                        batch, labels.get(i), labels.get(0)), k -> new ArrayList<>()).add(new double[] {ms[i], ms[0]});
                            }
                        }
                    }
                    for (int i = 0; first && i < nets.size(); i++) {
                        if (nets.size() > 1) System.out.println("winograd " + variants.get(i).label() + ":");
                        printChoices(nets.get(i), batch);
                        if (layerTimes > 0) printLayerTimes(nets.get(i), batch, layerTimes);
                    }
                } finally {
                    for (CpuNetwork net : nets) net.close();
                }
            }
            if (peers.isEmpty()) continue;
            try (CpuNetwork net = new CpuNetwork(m.spec(), m.weights(), batch)) {   // the peers' input tensor
                fill(net, m, picture, batch);
                for (String name : peers) {
                    try (Peer peer = peer(name, m, weightsFile, img, net, batch)) {
                        if (first && peer instanceof OnnxRuntimePeer o && OnnxHead.in(m) != null) compare(o, net, m, batch);
                        double theirs = switch (peer) {
                            case DarknetPeer d -> timeDarknet(d, batch);
                            case OnnxRuntimePeer o -> timeOnnxRuntime(o, batch);
                            case OpenVinoPeer o -> timeOpenVino(o, batch);
                            default -> time(peer.name(), batch, peer::forward);
                        };
                        for (var e : ours.entrySet()) {
                            byRound.computeIfAbsent(String.format(Locale.ROOT, "batch %d: ratio ours(%s)/%s", batch,
                                    e.getKey(), name), k -> new ArrayList<>()).add(new double[] {e.getValue(), theirs});
                        }
                    }
                }
            }
        }
        String rss = peakRss();
        if (rss != null) System.out.println("peak RSS of this process (VmHWM): " + rss);
        byRound.forEach((label, ms) -> System.out.println(ratioLine(label, ms)));
        return 0;
    }

    /**
     * One ratio of ours to another side's ms/image ({@code ms}: per round, {ours, theirs}): the ratio and both times for
     * one round; for several, each round's ratio, their median and spread, and the median of each side's times.
     */
    static String ratioLine(String label, List<double[]> ms) {
        if (ms.size() == 1) {
            double[] r = ms.get(0);
            return String.format(Locale.ROOT, "%s = %.3f (%.2f vs %.2f ms/image)", label, r[0] / r[1], r[0], r[1]);
        }
        List<Double> ratios = ms.stream().map(r -> r[0] / r[1]).toList();
        double lo = ratios.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double hi = ratios.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        return String.format(Locale.ROOT, "%s = %.3f, median of %d rounds (%s; spread %.3f..%.3f; ms/image medians %.2f vs %.2f)",
                label, median(ratios), ms.size(),
                String.join(", ", ratios.stream().map(r -> String.format(Locale.ROOT, "%.3f", r)).toList()), lo, hi,
                median(ms.stream().map(r -> r[0]).toList()), median(ms.stream().map(r -> r[1]).toList()));
    }

    /**
     * One timed pass: the network's forward, and for an imported model its tail too (the graph's decoding after the
     * layers, which the peers' session runs include).
     */
    private static IntConsumer forward(CpuNetwork net, Model m) {
        if (OnnxHead.in(m) == null) return net::forward;
        float[][] scratch = CpuBackend.tailScratch(m);
        OnnxHead head = OnnxHead.in(m);
        // the decoded outputs written into arrays made once, as a caller that reads them per frame would
        float[][] outputs = head.decoder() == null ? null : new float[net.maxBatch()][head.decoder().outputSize()];
        return n -> {
            net.forward(n);
            CpuBackend.tailOutputs(net, head, n, scratch, outputs);
        };
    }

    /**
     * An imported model's outputs against ONNX Runtime's on the same input tensor: relative L2 per output and image,
     * printed before the timings (a fast wrong answer is no result).
     */
    private static void compare(OnnxRuntimePeer o, CpuNetwork net, Model m, int batch) {
        net.forward(batch);
        List<List<io.argus.detector.onnx.OnnxInterpreter.Tensor>> ours = CpuBackend.tailOutputs(net, OnnxHead.in(m), batch,
                CpuBackend.tailScratch(m));
        var theirs = o.outputs(batch);
        List<String> names = OnnxHead.in(m).tail().outputs();
        for (int k = 0; k < names.size(); k++) {
            float[] all = theirs.outputs().get(names.get(k));
            for (int i = 0; i < batch; i++) {
                float[] mine = ours.get(i).get(k).data();
                float[] their = Arrays.copyOfRange(all, i * mine.length, (i + 1) * mine.length);
                double num = 0, den = 0;
                for (int j = 0; j < mine.length; j++) {
                    double d = (double) mine[j] - their[j];
                    num += d * d;
                    den += (double) their[j] * their[j];
                }
                System.out.printf(Locale.ROOT, "agreement: %s image %d, ours vs onnxruntime: relative L2 %.2e%n",
                        names.get(k), i, Math.sqrt(num / Math.max(den, 1e-30)));
            }
        }
    }

    private static void fill(CpuNetwork net, Model m, BgrImage picture, int batch) {
        int inputSize = m.spec().inputShape().size();
        if (OnnxHead.in(m) != null) {
            OnnxInput input = new OnnxInput(OnnxHead.in(m).convention());
            for (int i = 0; i < batch; i++) {
                input.write(picture, m.spec().net().width(), m.spec().net().height(), net.input(), i * inputSize);
            }
            return;
        }
        Preprocess pre = new Preprocess();
        int size = m.spec().inputShape().size();
        for (int i = 0; i < batch; i++) {
            pre.into(picture, m.spec().net().width(), m.spec().net().height(), m.spec().net().letterBox(), net.input(), i * size);
        }
    }

    /** {@link io.argus.gpu.CacheHome}'s cpu-tuning: where argus run keeps it with the default cacheDir. */
    static Path defaultTuningDir() {
        return io.argus.gpu.CacheHome.current().resolve("cpu-tuning");
    }

    /** Which implementation each kind of convolution runs, e.g. "conv 3x3/1: 12 x direct|brg_conv_fwd:avx512_core". */
    private static void printChoices(CpuNetwork net, int batch) {
        java.util.Map<String, java.util.Map<String, Integer>> byShape = new java.util.TreeMap<>();
        int timed = 0;
        for (CpuNetwork.ConvolutionChoice c : net.convolutionChoices(batch)) {
            byShape.computeIfAbsent(c.shape(), k -> new java.util.TreeMap<>()).merge(c.implementation(), 1, Integer::sum);
            if (!c.timesMs().isEmpty()) timed++;
        }
        for (var e : byShape.entrySet()) {
            StringBuilder line = new StringBuilder("  conv " + e.getKey() + ":");
            e.getValue().forEach((impl, count) -> line.append(' ').append(count).append(" x ").append(impl).append(';'));
            System.out.println(line.substring(0, line.length() - 1));
        }
        System.out.println("  (" + timed + " convolutions timed now, the rest from the tuning cache or with one candidate)");
    }

    /**
     * Each convolution's median wall time over {@code runs} layer-by-layer passes ({@link CpuNetwork#forwardTimed}),
     * with its implementation and, when the tuner timed it in this run, the fastest of oneDNN's candidates and each of
     * ours as the tuner measured them: where our Winograd wins and where it loses.
     */
    private static void printLayerTimes(CpuNetwork net, int batch, int runs) {
        long[][] ns = new long[runs][];
        for (int r = 0; r < runs; r++) ns[r] = net.forwardTimed(batch);
        double total = 0;
        for (CpuNetwork.ConvolutionChoice c : net.convolutionChoices(batch)) {
            long[] t = new long[runs];
            for (int r = 0; r < runs; r++) t[r] = ns[r][c.layer()];
            Arrays.sort(t);
            double ms = t[runs / 2] / 1e6;
            total += ms;
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "  layer %3d conv %-6s %-32s %7.3f ms  %s",
                    c.layer(), c.shape(), c.size(), ms, c.implementation()));
            if (!c.timesMs().isEmpty()) {
                String bestTheirs = null;
                double bestMs = Double.POSITIVE_INFINITY;
                StringBuilder mine = new StringBuilder();
                for (var e : c.timesMs().entrySet()) {
                    if (e.getKey().contains("|argus-")) {
                        mine.append(String.format(Locale.ROOT, ", %s %.3f", e.getKey().substring(e.getKey().indexOf('|') + 1), e.getValue()));
                    } else if (e.getValue() < bestMs) {
                        bestMs = e.getValue();
                        bestTheirs = e.getKey();
                    }
                }
                line.append(String.format(Locale.ROOT, "  (tuner: oneDNN best %.3f %s%s)", bestMs, bestTheirs, mine));
            }
            System.out.println(line);
        }
        System.out.printf(Locale.ROOT, "  convolutions: %.3f ms of medians (%d layer-by-layer passes)%n", total, runs);
    }

    /** Linux' high-water mark of resident memory, e.g. "812345 kB"; null elsewhere. */
    static String peakRss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) return line.substring(6).trim();
            }
        } catch (java.io.IOException | UnsupportedOperationException e) {
            return null;
        }
        return null;
    }

    /**
     * The CUDA path: per batch size the forward as a CUDA graph and without, and detect end to end in each memory
     * mode; images/s, ms/batch and achieved TFLOP/s per line (peers for the GPU: scripts/gpu/torch_peer.py).
     */
    private int cuda() throws InterruptedException {
        if (vs != null) {
            throw new IllegalArgumentException("--vs is for the CPU; the GPU peers are scripts/gpu/torch_peer.py (cfgs) "
                    + "and scripts/gpu/onnx_peers.py (ONNX models)");
        }
        List<HostFrames.Kind> kinds = frames.stream().map(HostFrames.Kind::parse).toList();   // bad values before CUDA
        if (gpus != null) return gpuScaling(kinds);
        CudaRuntime.require();
        Model m = model.load(false);
        System.out.println("model: " + m.spec() + (OnnxHead.in(m) != null ? ", " + OnnxHead.in(m).family().configName() + " head"
                : model.weights == null ? ", random weights (seed " + model.seed + ")" : ""));
        Path img = image != null ? image : ProjectPaths.sample("dog.jpg");
        List<MemoryMode> modes = memory.stream().map(MemoryMode::parse).toList();
        new CudaBench(seconds, minIterations, warmup, System.out).run(m, batches, BgrImage.read(img), modes, kinds,
                CudaSystemProperties.inference());
        return 0;
    }

    /**
     * {@code --gpus}: for each batch size and GPU count N, whole detect calls kept in flight on one worker per GPU
     * 0..N-1 ({@link GpuScalingBench}); the detect threshold is chosen once on GPU 0 as for the single-GPU bench.
     */
    private int gpuScaling(List<HostFrames.Kind> kinds) throws InterruptedException {
        GpuScalingBench.counts(gpus, Integer.MAX_VALUE);   // bad counts fail before CUDA is asked
        GpuScalingBench bench = new GpuScalingBench(seconds, warmup, inFlight, System.out);
        CudaRuntime.require();
        int[] counts = GpuScalingBench.counts(gpus, CudaRuntime.deviceCount());
        Model m = model.load(false);
        CudaOptions options = CudaSystemProperties.inference().withMemory(MemoryMode.parse(memory.get(0)));
        BgrImage picture = BgrImage.read(image != null ? image : ProjectPaths.sample("dog.jpg"));
        System.out.println("model: " + m.spec() + (model.weights == null ? ", random weights (seed " + model.seed + ")" : "")
                + "; " + CudaRuntime.deviceCount() + " CUDA devices; " + CudaRuntime.versions() + "; memory "
                + options.memory().name().toLowerCase(Locale.ROOT) + "; frames " + picture.width() + "x"
                + picture.height());
        DetectParams params;
        try (CudaBackend probe = CudaBackend.open(m, 1, options.withDevice(0))) {
            params = CudaBench.realisticThreshold(probe, picture, System.out);
        }
        for (HostFrames.Kind kind : kinds) {
            System.out.println("frames: " + kind.label() + ", each in its own buffer");
            for (int batch : batches) {
                try (HostFrames host = new HostFrames(kind, picture, batch)) {
                    bench.run(m.spec().name(), counts, batch, n -> GpuWorkers.cuda(m, batch, options, firstDevices(n)),
                            host.frames(), params);
                }
            }
        }
        return 0;
    }

    private static int[] firstDevices(int n) {
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) ids[i] = i;
        return ids;
    }

    private Peer peer(String name, Model m, Path weights, Path img, CpuNetwork net, int batch) {
        var s = m.spec().inputShape();
        if (OnnxHead.in(m) != null && (name.equals("opencv") || name.equals("darknet"))) {
            throw new IllegalArgumentException("--vs " + name + ": runs Darknet cfgs; an ONNX model's peers are onnxruntime "
                    + "and openvino");
        }
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "opencv" -> new OpenCvPeer(m.spec().file(), weights, net.input(), batch, s.channels(), s.height(),
                    s.width(), true);
            case "darknet" -> new DarknetPeer(m.spec().file(), s.width(), s.height(), weights, net.input());
            case "onnxruntime" -> OnnxHead.in(m) != null
                    ? new OnnxRuntimePeer(ProjectPaths.home().resolve("scripts/onnxruntime"), m.spec().file(), m, net.input())
                    : new OnnxRuntimePeer(ProjectPaths.home().resolve("scripts/onnxruntime"), m, net.input());
            case "openvino", "openvino-best" -> OnnxHead.in(m) != null
                    ? new OpenVinoPeer(ProjectPaths.home().resolve("scripts/openvino"), m.spec().file(), net.input(),
                            s.channels(), s.height(), s.width(),
                            name.equals("openvino") ? OpenVinoNode.Precision.F32 : OpenVinoNode.Precision.BEST)
                    : OpenVinoPeer.ofExport(ProjectPaths.home().resolve("scripts/openvino"), m,
                    net.input(), name.equals("openvino") ? OpenVinoNode.Precision.F32 : OpenVinoNode.Precision.BEST);
            default -> throw new IllegalArgumentException("--vs " + name + ": expected opencv, onnxruntime, openvino, "
                    + "openvino-best or darknet");
        };
    }

    /** How oneDNN's OpenMP threads wait between regions (bin/argus sets it): a figure depends on it on a small machine. */
    private static String openMpWaits() {
        String policy = System.getenv("OMP_WAIT_POLICY"), spin = System.getenv("GOMP_SPINCOUNT");
        if (policy != null) return policy.toLowerCase(Locale.ROOT) + (spin != null ? ", spin count " + spin : "");
        return spin != null ? "spin " + spin + " turns, then sleep" : "libgomp's default (spin, then sleep)";
    }

    /** Median ms per image over repeated forward passes. */
    private double time(String name, int batch, IntConsumer forward) {
        for (int i = 0; i < warmup; i++) forward.accept(batch);
        List<Double> ms = new ArrayList<>();
        long start = System.nanoTime();
        while (ms.size() < minIterations || (System.nanoTime() - start) / 1e9 < seconds) {
            long t0 = System.nanoTime();
            forward.accept(batch);
            ms.add((System.nanoTime() - t0) / 1e6);
        }
        double median = median(ms);
        System.out.printf(Locale.ROOT, "%-10s batch %3d: %8.2f ms/batch  %8.2f ms/image  %7.1f images/s  (%d runs)%n",
                name, batch, median, median / batch, 1000.0 * batch / median, ms.size());
        return median / batch;
    }

    /**
     * Several networks timed in turns: one forward of each, round after round, for {@code --seconds} per network,
     * so slow and fast moments of a shared machine fall on all of them; median ms per image of each.
     */
    private double[] timeInTurns(List<String> labels, int batch, List<CpuNetwork> nets) {
        for (int i = 0; i < warmup; i++) for (CpuNetwork net : nets) net.forward(batch);
        List<List<Double>> ms = new ArrayList<>();
        for (int i = 0; i < nets.size(); i++) ms.add(new ArrayList<>());
        long start = System.nanoTime();
        while (ms.get(0).size() < minIterations || (System.nanoTime() - start) / 1e9 < seconds * nets.size()) {
            for (int i = 0; i < nets.size(); i++) {
                long t0 = System.nanoTime();
                nets.get(i).forward(batch);
                ms.get(i).add((System.nanoTime() - t0) / 1e6);
            }
        }
        double[] perImage = new double[nets.size()];
        for (int i = 0; i < nets.size(); i++) {
            double median = median(ms.get(i));
            System.out.printf(Locale.ROOT, "%-10s batch %3d: %8.2f ms/batch  %8.2f ms/image  %7.1f images/s  (%d runs, in turns)%n",
                    "argus-" + labels.get(i), batch, median, median / batch, 1000.0 * batch / median, ms.get(i).size());
            perImage[i] = median / batch;
        }
        return perImage;
    }

    /** Darknet predicts one image at a time: median of its own per-run timings, ms per image. */
    private double timeDarknet(DarknetPeer d, int batch) {
        List<Double> ms = d.times(warmup + Math.max(3, minIterations));
        ms = ms.subList(warmup, ms.size());
        double median = median(ms);
        System.out.printf(Locale.ROOT, "%-10s batch %3d: %8.2f ms/image (network_predict, one image per call, %d runs)%n",
                "darknet", batch, median, ms.size());
        return median;
    }

    /**
     * ONNX Runtime times its own session.run calls in its process, for as many runs as our side took or
     * {@code --seconds} needs at its first run's pace: median ms per image.
     */
    private double timeOnnxRuntime(OnnxRuntimePeer o, int batch) {
        List<Double> probe = o.times(batch, 1, warmup);
        int runs = Math.max(minIterations, (int) Math.ceil(seconds * 1000 / Math.max(probe.get(0), 1e-3)));
        List<Double> ms = o.times(batch, runs, warmup);
        double median = median(ms);
        System.out.printf(Locale.ROOT, "%-10s batch %3d: %8.2f ms/batch  %8.2f ms/image  %7.1f images/s  (%d runs, "
                + "its own timing of session.run)%n", "onnxrt", batch, median, median / batch, 1000.0 * batch / median,
                ms.size());
        return median / batch;
    }

    /**
     * OpenVINO compiles the model once per call and times its own infer calls in its process, for as many runs as
     * our side took or {@code --seconds} needs at its first run's pace: median ms per image. Prints the precision the
     * CPU plugin compiled for and the CPU it names.
     */
    private double timeOpenVino(OpenVinoPeer o, int batch) {
        OpenVinoNode.Result probe = o.run(batch, 1, warmup);
        int runs = Math.max(minIterations, (int) Math.ceil(seconds * 1000 / Math.max(probe.ms().get(0), 1e-3)));
        OpenVinoNode.Result r = o.run(batch, runs, warmup);
        double median = median(r.ms());
        System.out.printf(Locale.ROOT, "%-10s batch %3d: %8.2f ms/batch  %8.2f ms/image  %7.1f images/s  (%d runs, "
                + "its own timing of infer; OpenVINO %s, precision %s, %d threads, %s)%n", o.name(), batch, median,
                median / batch, 1000.0 * batch / median, r.ms().size(), r.version(), r.precision(), r.threads(),
                r.device());
        return median / batch;
    }

    static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }
}
