#!/usr/bin/env python3
"""The peers of `argus bench --backend cuda --cfg MODEL.onnx` for an imported YOLO model: the same PyTorch module that
scripts/onnx/yolo_models.py exports (family and size, the same seed, so the same random weights; RepConv fused as
exported), and ONNX Runtime on the exported graph. Prints one line per peer and batch in the format of `argus bench`
(forward including the graph's head decoding, as Argus's forward includes its tail kernel; no NMS on either side):

  torch-eager / torch-graph   FP16, channels_last, cudnn.benchmark; eager, and one CUDA graph per batch size
  torch-compile               torch.compile(mode="max-autotune-no-cudagraphs") for --compile-batch (minutes each)
  onnxrt-cuda / onnxrt-cpu    ONNX Runtime on --onnx (the file Argus runs, batch 1) and, for other batch sizes, on a
                              dynamic-batch export of the same module; the CUDA execution provider when this
                              onnxruntime has it, else the CPU one (says which); FP32 (no FP16 conversion: the graph
                              is run as exported); wall clock of session.run with the input already in host memory

  python3 scripts/gpu/onnx_peers.py --family yolov8 --size n --onnx yolov8n.onnx --batch 1,32,64 --compile-batch 64
      [--models-script scripts/onnx/yolo_models.py] [--ort-batch 1,32,64] [--ort-runs 20] [--seconds 1]
"""
import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from torch_peer import ints, report, time_it  # noqa: E402  (the Darknet peer's timing and line format)


def load_models_script(path):
    spec = importlib.util.spec_from_file_location("yolo_models", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_module(ym, family, size):
    """The module as yolo_models.py's main builds it before exporting: seed 0, randomised, RepConv fused, dry run."""
    torch.manual_seed(0)
    model, imgsz, names, output, meta, scale = ym.build(family, size)
    model = ym.randomise(model, imgsz, scale)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, ym.RepConv):
                m.fuse()
        model(torch.rand(1, 3, imgsz, imgsz) * scale)
    return model.eval(), imgsz, scale, output


def conv_flops(model, imgsz):
    """Convolution FLOPs of one image (2 x multiply-adds), as Argus counts them."""
    total = [0]

    def hook(m, inputs, out):
        total[0] += 2 * out.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]

    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    with torch.no_grad():
        model(torch.zeros(1, 3, imgsz, imgsz))
    for h in handles:
        h.remove()
    return total[0]


def onnxruntime_peer(args, model, imgsz, scale, output, flops):
    try:
        import onnxruntime as ort
    except ImportError:
        print("onnxruntime: not installed here, no ONNX Runtime figures", flush=True)
        return
    available = ort.get_available_providers()
    provider = "CUDAExecutionProvider" if "CUDAExecutionProvider" in available else "CPUExecutionProvider"
    name = "onnxrt-cuda" if provider == "CUDAExecutionProvider" else "onnxrt-cpu"
    print(f"onnxruntime {ort.__version__}: providers {available}; timing with {provider}, FP32 graph as exported"
          + ("" if provider == "CUDAExecutionProvider" else " (no CUDA execution provider in this onnxruntime)"),
          flush=True)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    dynamic = None
    for batch in ints(args.ort_batch):
        path = args.onnx if batch == 1 and args.onnx else None
        if path is None:
            if dynamic is None:
                dynamic = os.path.join(tempfile.mkdtemp(), f"{args.family}{args.size}-dynamic.onnx")
                warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
                torch.onnx.export(model, torch.rand(1, 3, imgsz, imgsz) * scale, dynamic, opset_version=17,
                                  input_names=["images"], output_names=[output], do_constant_folding=True,
                                  dynamo=False, dynamic_axes={"images": {0: "batch"}, output: {0: "batch"}})
            path = dynamic
        session = ort.InferenceSession(path, options, providers=[provider])
        x = (np.random.default_rng(1).random((batch, 3, imgsz, imgsz), dtype=np.float32) * scale)
        feed = {session.get_inputs()[0].name: x}
        for _ in range(2):
            session.run(None, feed)
        samples = []
        t0 = time.time()
        while len(samples) < 3 or (len(samples) < args.ort_runs and time.time() - t0 < args.seconds):
            s = time.perf_counter()
            session.run(None, feed)
            samples.append((time.perf_counter() - s) * 1000.0)
        what = f"ONNX Runtime {provider} FP32 session.run, {'the file Argus runs' if path == args.onnx else 'dynamic-batch export'}"
        report(name, batch, statistics.median(samples), len(samples), flops, what)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--family", required=True)
    p.add_argument("--size", default="n")
    p.add_argument("--onnx", help="the static batch-1 file Argus runs (ONNX Runtime's batch 1)")
    p.add_argument("--models-script", default=os.path.join(HERE, "..", "onnx", "yolo_models.py"))
    p.add_argument("--batch", default="1,32,64", help="PyTorch eager and CUDA graph batch sizes")
    p.add_argument("--compile-batch", default="", help="batch sizes timed with torch.compile max-autotune")
    p.add_argument("--ort-batch", default="1", help="ONNX Runtime batch sizes ('' for none)")
    p.add_argument("--ort-runs", type=int, default=20)
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--skip-torch", action="store_true")
    p.add_argument("--note", default="", help="appended to each PyTorch line's description (where it ran)")
    a = p.parse_args()
    ym = load_models_script(a.models_script)
    model, imgsz, scale, output = build_module(ym, a.family, a.size)
    flops = conv_flops(model, imgsz)
    print(f"{a.family}{a.size} at {imgsz}x{imgsz}: {flops / 1e9:.2f} GFLOP/image (convolutions)", flush=True)
    if a.ort_batch:
        onnxruntime_peer(a, model, imgsz, scale, output, flops)
    if a.skip_torch:
        return 0
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    net = model.to(dev).half().to(memory_format=torch.channels_last).eval()
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}"
          + (f" ({a.note})" if a.note else ""), flush=True)
    compile_batches = set(ints(a.compile_batch)) if a.compile_batch else set()
    compiled = None
    with torch.inference_mode():
        for batch in ints(a.batch):
            x = (torch.rand(batch, 3, imgsz, imgsz, device=dev) * scale).half().to(memory_format=torch.channels_last)
            ms, runs = time_it(lambda: net(x), a.seconds)
            report("torch-eager", batch, ms, runs, flops, "eager FP16 channels_last cudnn.benchmark")
            static_x = x.clone()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    net(static_x)
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                net(static_x)
            ms, runs = time_it(graph.replay, a.seconds)
            report("torch-graph", batch, ms, runs, flops, "CUDA graph")
            del graph
        for batch in sorted(compile_batches):
            x = (torch.rand(batch, 3, imgsz, imgsz, device=dev) * scale).half().to(memory_format=torch.channels_last)
            if compiled is None:
                compiled = torch.compile(net, mode="max-autotune-no-cudagraphs")
            t0 = time.time()
            compiled(x)
            torch.cuda.synchronize()
            print(f"torch.compile max-autotune-no-cudagraphs batch {batch}: compiled in {time.time() - t0:.0f} s",
                  flush=True)
            ms, runs = time_it(lambda: compiled(x), a.seconds)
            report("torch-compile", batch, ms, runs, flops,
                   "torch.compile max-autotune-no-cudagraphs" + (", " + a.note if a.note else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
