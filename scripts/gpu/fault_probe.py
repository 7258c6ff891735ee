#!/usr/bin/env python3
"""Does a GPU fault on one device take the process's other devices down with it, independently of Argus?

PyTorch on two GPUs: a device-side assert (an out-of-range index: a trap in the kernel, as GpuFaults.trap makes) on
cuda:1, then work on cuda:0 in the same process. Prints what each step returned, and how the host is set up (compute
mode, an MPS daemon). Used to read GpuWorkersGpuTest's result on the device (docs/cuda.md, "Several GPUs").
"""
import os
import subprocess
import torch


def step(name, fn):
    try:
        out = fn()
        print(f"{name}: ok {out}", flush=True)
    except Exception as e:  # noqa: BLE001 - the point is to see which error
        print(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}", flush=True)


print("devices:", torch.cuda.device_count(), torch.cuda.get_device_name(0))
print(subprocess.run(["nvidia-smi", "--query-gpu=index,compute_mode,pci.bus_id", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip())
mps = subprocess.run(["pgrep", "-a", "nvidia-cuda-mps"], capture_output=True, text=True).stdout.strip()
print("MPS daemon:", mps or "none", "| CUDA_MPS_PIPE_DIRECTORY:", os.environ.get("CUDA_MPS_PIPE_DIRECTORY"))
step("cuda:0 before", lambda: torch.ones(3, device="cuda:0").sum().item())
step("cuda:1 before", lambda: torch.ones(3, device="cuda:1").sum().item())
step("peer access 0<->1", lambda: torch.cuda.can_device_access_peer(0, 1))


def fault():
    x = torch.zeros(10, device="cuda:1")
    i = torch.tensor([1 << 30], device="cuda:1")
    x[i] = 1.0
    torch.cuda.synchronize(1)


step("trap on cuda:1", fault)
step("cuda:1 after", lambda: torch.ones(3, device="cuda:1").sum().item())
step("cuda:0 after", lambda: torch.ones(3, device="cuda:0").sum().item())
