"""Times of a GPU function measured with CUDA events, for the benchmark scripts here (GPU host, torch installed)."""
import torch


def event_times(fn, reps):
    """Milliseconds of each of `reps` calls of fn, each between two CUDA events on the current stream."""
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return times
