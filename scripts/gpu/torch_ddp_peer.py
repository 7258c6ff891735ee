#!/usr/bin/env python3
"""The PyTorch DDP peer of `argus bench train --gpus N`: torch_train_peer.py's network (built from the Darknet cfg,
batch norm as layers, channels_last, cudnn.benchmark) and stand-in loss, trained data-parallel with
DistributedDataParallel over NCCL, one process per GPU, as torchrun starts them: AMP (autocast FP16 + GradScaler from
2^16), SGD with momentum 0.9 and weight decay 0.0005, each rank on its own resident random batch of --batch images.
DDP's defaults otherwise (25 MB buckets, all-reduce overlapped with the backward pass), plus gradient_as_bucket_view
and static_graph, which save a copy. --compile adds torch.compile (--compile-mode, default max-autotune-no-cudagraphs:
CUDA graphs do not go with DDP's communication hooks; "default" compiles in a fraction of the time). The ranks run
rounds of 5 iterations until rank 0 has timed --seconds (a collective needs every rank, so all make the same
number). Prints one line from rank 0:

  torch-ddp model=... mode=amp gpus=N batch_per_gpu=B iterations=I images/s=X per_gpu=Y ms/iter=Z median_ms=M

  torchrun --standalone --nproc_per_node 2 scripts/gpu/torch_ddp_peer.py --cfg config/models/cfg/yolov4-tiny.cfg
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_train_peer import TrainNet, stand_in_loss  # noqa: E402

ROUND = 5


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cfg", required=True)
    p.add_argument("--size", type=int, default=416)
    p.add_argument("--batch", type=int, default=64, help="images per GPU")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--compile", action="store_true")
    p.add_argument("--compile-mode", default="max-autotune-no-cudagraphs")
    a = p.parse_args()
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")   # never NVLink multicast on a shared host
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    world = dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(1)   # the same initial weights on every rank (DDP also broadcasts rank 0's)
    model = TrainNet(a.cfg, a.size).to(dev).to(memory_format=torch.channels_last).train()
    ddp = DDP(model, device_ids=[local], gradient_as_bucket_view=True, static_graph=True)
    net = torch.compile(ddp, mode=a.compile_mode) if a.compile else ddp
    torch.manual_seed(17 + rank)
    x = torch.rand(a.batch, 3, a.size, a.size, device=dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9, weight_decay=0.0005)
    scaler = torch.amp.GradScaler("cuda", init_scale=65536.0)

    def iteration():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            heads = net(x)
        loss = stand_in_loss(heads)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss

    t_setup = time.time()
    for _ in range(a.warmup):
        iteration()
    torch.cuda.synchronize()
    setup = time.time() - t_setup
    go = torch.ones(1, device=dev)
    times = []
    done = 0
    t0 = time.time()
    while True:
        for _ in range(ROUND):
            i0 = time.time()
            loss = iteration()
            loss.detach().item()   # one host read per iteration, as Argus reads its loss
            times.append(time.time() - i0)
        done += ROUND
        go.fill_(1.0 if (done < 5 or time.time() - t0 < a.seconds) else 0.0)
        dist.broadcast(go, 0)
        if go.item() == 0:
            break
    torch.cuda.synchronize()
    elapsed = time.time() - t0
    times.sort()
    if rank == 0:
        name = os.path.splitext(os.path.basename(a.cfg))[0]
        mode = f"amp-compile-{a.compile_mode}" if a.compile else "amp"
        total = done * a.batch * world / elapsed
        print(f"torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}, "
              f"{torch.cuda.get_device_name()}, warm-up {setup:.1f} s", flush=True)
        print(f"torch-ddp model={name} mode={mode} gpus={world} batch_per_gpu={a.batch} iterations={done} "
              f"images/s={total:.1f} per_gpu={total / world:.1f} ms/iter={1000 * elapsed / done:.3f} "
              f"median_ms={1000 * times[len(times) // 2]:.3f} loss={float(loss):.6g}", flush=True)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
