# torch-sdpa.py DTYPE BACKENDS SHAPE... -- the peer that the attention
# chapters' counters.sh scripts measure (make bench, on the GPU machine
# only; nothing in the build runs Python): PyTorch's
# scaled_dot_product_attention with each backend of BACKENDS (a comma list
# of flash, cudnn, mem_efficient, math) on each SHAPE, TAG:B:H:Sq:Sk:D,
# causal and not when Sq == Sk, not causal otherwise.  DTYPE: bf16, or
# fp32 with TF32 off.  Inputs uniform in [-1, 1) from a fixed seed; median
# of 20 samples after 3 warm-ups, timed as the book's benchkit times its
# own kernels (tests/common/benchkit.h): kernel time, not Python dispatch.
# A sample first queues torch.cuda._sleep(cycles), which holds the stream,
# then event a, N back-to-back calls and event b; per call = (b - a) / N,
# N = ceil(0.1 ms / one call), 1 to 10.  The sleep must outlast the
# queueing of the N calls, or the GPU would wait for Python inside a..b:
# a sample whose queueing took longer than the sleep is thrown away and
# the cycles doubled.  Without torch.cuda._sleep, or with
# BOOK_BENCH_TIMING=host, the old method: one call between two events on
# an idle GPU, Python dispatch included (said on stderr).
# Prints "version,TORCH_VERSION,,,," first, then one row a measurement:
# "TAG[c]/BACKEND,BACKEND,CAUSAL,SHAPE,MS,TFLOPS"; a backend that cannot
# run a shape is skipped, saying so on stderr, where the progress goes
# too.  Exits 3 when torch or its GPU is missing, so the caller can skip.
import math
import os
import sys
import time

t0 = time.monotonic()


def say(msg):
    print(f"counters: {time.monotonic() - t0:7.2f} s  {msg}",
          file=sys.stderr, flush=True)


try:
    import statistics
    import torch
    from torch.nn.attention import sdpa_kernel, SDPBackend
    assert torch.cuda.is_available()
except Exception:
    sys.exit(3)
if len(sys.argv) < 4 or sys.argv[1] not in ("bf16", "fp32"):
    sys.exit("usage: torch-sdpa.py bf16|fp32 BACKEND,... TAG:B:H:Sq:Sk:D...")
dtype = sys.argv[1]
every = {"flash": SDPBackend.FLASH_ATTENTION,
         "cudnn": SDPBackend.CUDNN_ATTENTION,
         "mem_efficient": SDPBackend.EFFICIENT_ATTENTION,
         "math": SDPBackend.MATH}
backends = [(b, every[b]) for b in sys.argv[2].split(",")]
say(f"torch {torch.__version__} imported")
print(f"version,{torch.__version__},,,,", flush=True)
if dtype == "fp32":
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False


host_timing = (os.environ.get("BOOK_BENCH_TIMING") == "host"
               or not hasattr(torch.cuda, "_sleep"))
say("timing: " + ("host (one call between two events, dispatch included)"
                  if host_timing else
                  "kernel (N calls behind torch.cuda._sleep, per call)"))
sleep_cycles = [1 << 20]     # grows, never shrinks: doubled on a miss


def host_sample(f):
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    f()
    b.record()
    b.synchronize()
    return a.elapsed_time(b)


def held_sample(f, n):
    """Per-call ms of n calls of f queued behind a sleep that outlasts
    their queueing; retried with twice the cycles when it did not."""
    for _ in range(40):
        s = torch.cuda.Event(enable_timing=True)
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        s.record()
        t0 = time.perf_counter()
        torch.cuda._sleep(sleep_cycles[0])
        a.record()
        for _ in range(n):
            f()
        b.record()
        queued_ms = (time.perf_counter() - t0) * 1e3
        b.synchronize()
        slept_ms = s.elapsed_time(a)
        if queued_ms < 0.8 * slept_ms:
            return a.elapsed_time(b) / n
        sleep_cycles[0] *= 2
    sys.exit("torch-sdpa.py: the sleep never outlasted the queueing")


def timed(f, reps=20):
    """Median per-call ms of reps samples, by the method in force."""
    for _ in range(3):
        f()
    torch.cuda.synchronize()
    if host_timing:
        return statistics.median(host_sample(f) for _ in range(reps))
    one = held_sample(f, 1)
    n = 10 if one <= 0 else max(1, min(10, math.ceil(0.1 / one)))
    return statistics.median(held_sample(f, n) for _ in range(reps))


def uniform(g, *size):
    x = torch.rand(*size, device="cuda", generator=g) * 2 - 1
    return x.bfloat16() if dtype == "bf16" else x


for spec in sys.argv[3:]:
    tag, B, H, Sq, Sk, D = spec.split(":")
    B, H, Sq, Sk, D = int(B), int(H), int(Sq), int(Sk), int(D)
    g = torch.Generator(device="cuda").manual_seed(1)
    q = uniform(g, B, H, Sq, D)
    k, v = (uniform(g, B, H, Sk, D) for _ in range(2))
    shape = f"B{B}H{H}S{Sq}D{D}" if Sq == Sk else f"B{B}H{H}Sq{Sq}Sk{Sk}D{D}"
    for causal in ((0, 1) if Sq == Sk else (0,)):
        for name, be in backends:
            what = f"{shape} causal={causal} {name}"
            say(what + " ...")
            try:
                with sdpa_kernel(be):
                    def f():
                        return torch.nn.functional.scaled_dot_product_attention(
                            q, k, v, is_causal=bool(causal))
                    ms = timed(f)
            except Exception as e:
                say(f"{what}: not run ({type(e).__name__})")
                continue
            say(f"{what}: {ms:.4f} ms per call, median of 20")
            if causal:   # query i sees keys 0 .. i + Sk - Sq
                pairs = sum(max(0, min(Sk, i + Sk - Sq + 1)) for i in range(Sq))
            else:
                pairs = Sq * Sk
            tf = 4.0 * B * H * D * pairs / (ms * 1e9)
            print(f"{tag}{'c' if causal else ''}/{name},{name},{causal},"
                  f"{shape},{ms:.4f},{tf:.2f}", flush=True)
            torch.cuda.empty_cache()
say("done")
