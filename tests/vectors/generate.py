#!/usr/bin/python3
"""Independent PyTorch reference for lenet-parallel: writes tests/vectors/lenet_vectors.txt.

Written from the text of docs/network.md (the network definition), not from the C++ code:
splitmix64 / uniform01 / init / epoch order in plain Python integers and doubles, the forward
pass with torch.nn.functional (float32), and every gradient by autograd (loss.backward()).

Run from the repository root:   /usr/bin/python3 tests/vectors/generate.py
It (re)creates tests/vectors/data/ (the first 128 train and 32 test images of Fashion-MNIST, as
plain IDX files) from the Debian package dataset-fashion-mnist, writes the vector file, then
re-reads it and runs self-checks (including a float64 comparison of the per-sample gradients).
File format and tolerances: tests/vectors/README.md.
"""
import datetime
import gzip
import math
import os
import struct
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
DATA_OUT = os.path.join(HERE, "data")
OUT_FILE = os.path.join(HERE, "lenet_vectors.txt")
FASHION = "/usr/share/datasets/fashion-mnist"
N_TRAIN, N_TEST = 128, 32

M64 = (1 << 64) - 1
SHAPES = [("W1", (6, 5, 5), 25), ("b1", (6,), 25), ("W2", (4, 4), 16), ("b2", (1,), 16),
          ("W3", (10, 216), 216), ("b3", (10,), 216)]
N_PARAMS = sum(math.prod(s) for _, s, _ in SHAPES)  # 2343


# ---------------------------------------------------------------- random numbers (spec text)
class SplitMix64:
    def __init__(self, seed):
        self.state = seed & M64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & M64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def uniform01(self):
        return (self.next() >> 40) * 2.0 ** -24  # exact in double (and in float32)


def init_params(seed):
    """All 2343 initial parameters as float32, in parameter order."""
    rng = SplitMix64(seed)
    out = []
    for _, shape, fan_in in SHAPES:
        bound = 1.0 / math.sqrt(fan_in)  # double
        for _ in range(math.prod(shape)):
            out.append((2.0 * rng.uniform01() - 1.0) * bound)  # double, rounded once below
    return np.array(out, dtype=np.float64).astype(np.float32)


def epoch_order(seed, epoch, n):
    rng = SplitMix64(seed ^ (((epoch + 1) * 0xA0761D6478BD642F) & M64))
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.next() % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


# ---------------------------------------------------------------- data
def read_idx_gz(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    magic, n = struct.unpack(">II", raw[:8])
    if magic == 0x803:
        rows, cols = struct.unpack(">II", raw[8:16])
        return np.frombuffer(raw, np.uint8, n * rows * cols, 16).reshape(n, rows, cols)
    assert magic == 0x801, path
    return np.frombuffer(raw, np.uint8, n, 8)


def write_idx(path, arr):
    with open(path, "wb") as f:
        if arr.ndim == 3:
            f.write(struct.pack(">IIII", 0x803, *arr.shape))
        else:
            f.write(struct.pack(">II", 0x801, arr.shape[0]))
        f.write(np.ascontiguousarray(arr, dtype=np.uint8).tobytes())


def make_data():
    os.makedirs(DATA_OUT, exist_ok=True)
    sets = {}
    for prefix, n in (("train", N_TRAIN), ("t10k", N_TEST)):
        imgs = read_idx_gz(f"{FASHION}/{prefix}-images-idx3-ubyte.gz")[:n]
        labels = read_idx_gz(f"{FASHION}/{prefix}-labels-idx1-ubyte.gz")[:n]
        write_idx(os.path.join(DATA_OUT, f"{prefix}-images-idx3-ubyte"), imgs)
        write_idx(os.path.join(DATA_OUT, f"{prefix}-labels-idx1-ubyte"), labels)
        x = imgs.astype(np.float32) / np.float32(255.0)  # IEEE float32 division
        assert x.dtype == np.float32
        sets[prefix] = (x, labels.astype(np.int64))
    return sets


# ---------------------------------------------------------------- the network (torch)
def to_tensors(flat, dtype=torch.float32):
    """Split a flat parameter vector into leaf tensors that require grad."""
    out, k = [], 0
    for _, shape, _ in SHAPES:
        size = math.prod(shape)
        t = torch.tensor(np.asarray(flat[k:k + size]), dtype=dtype).reshape(shape)
        out.append(t.clone().requires_grad_(True))
        k += size
    return out


def flat(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors]).numpy()


def forward(params, x):
    """x: [B,28,28]. Returns a dict of every intermediate, batch first."""
    W1, b1, W2, b2, W3, b3 = params
    B = x.shape[0]
    z1 = F.conv2d(x.reshape(B, 1, 28, 28), W1.reshape(6, 1, 5, 5), b1)      # [B,6,24,24]
    a1 = torch.sigmoid(z1)
    # S1: one shared 4x4 kernel and bias, stride 4, applied to each of the 6 maps on its own.
    z2 = F.conv2d(a1.reshape(B * 6, 1, 24, 24), W2.reshape(1, 1, 4, 4), b2, stride=4)
    z2 = z2.reshape(B, 216)                                                 # n = m*36+i*6+j
    a2 = torch.sigmoid(z2)
    z3 = F.linear(a2, W3, b3)                                               # [B,10]
    logp = F.log_softmax(z3, dim=1)
    return dict(z1=z1, a1=a1, z2=z2, a2=a2, z3=z3, logp=logp)


def loss_and_grad(flat_params, x, y, dtype=torch.float32):
    """Mean loss over the batch and its gradient (autograd), plus the forward intermediates."""
    params = to_tensors(flat_params, dtype)
    f = forward(params, torch.tensor(x, dtype=dtype))
    loss = F.nll_loss(f["logp"], torch.tensor(y), reduction="mean")
    loss.backward()
    grad = torch.cat([p.grad.reshape(-1) for p in params]).numpy()
    return loss.detach().numpy(), grad, f


def sgd(flat_params, grad, lr):
    p = torch.tensor(flat_params, dtype=torch.float32)
    g = torch.tensor(grad, dtype=torch.float32)
    return (p - lr * g).numpy()  # theta <- theta - lr * grad, float32


def evaluate(flat_params, x, y):
    with torch.no_grad():
        f = forward(to_tensors(flat_params), torch.tensor(x))
        loss = F.nll_loss(f["logp"], torch.tensor(y), reduction="mean")
    z3 = f["z3"].numpy()
    correct = sum(int(np.argmax(z3[i]) == y[i]) for i in range(len(y)))  # first max on ties
    return correct, loss.numpy()


def checksum(params):
    s = 0.0
    for i, v in enumerate(params.tolist()):  # float32 -> double, index order
        s += (i + 1) * v
    return s


# ---------------------------------------------------------------- output
class Writer:
    def __init__(self):
        self.lines = []

    def put(self, kind, name, values):
        if kind == "f32":
            bits = np.asarray(values, dtype=np.float32).reshape(-1).view(np.uint32)
            text = [f"{b:08x}" for b in bits.tolist()]
        elif kind == "f64":
            bits = np.asarray(values, dtype=np.float64).reshape(-1).view(np.uint64)
            text = [f"{b:016x}" for b in bits.tolist()]
        elif kind == "u64":
            text = [f"{v & M64:016x}" for v in values]
        elif kind == "i32":
            text = [str(int(v)) for v in values]
        else:
            raise ValueError(kind)
        self.lines.append(f"{kind} {name} {len(text)} " + " ".join(text))


def parse(path):
    tensors, header = {}, False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if not header:
                assert line == "lenet-vectors 1", line
                header = True
                continue
            kind, name, count, *vals = line.split(" ")
            assert len(vals) == int(count), name
            if kind == "f32":
                v = np.array([int(t, 16) for t in vals], np.uint32).view(np.float32)
            elif kind == "f64":
                v = np.array([int(t, 16) for t in vals], np.uint64).view(np.float64)
            elif kind == "u64":
                v = [int(t, 16) for t in vals]
            else:
                v = [int(t) for t in vals]
            assert name not in tensors, name
            tensors[name] = (kind, v)
    return tensors


def main():
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    sets = make_data()
    xtr, ytr = sets["train"]
    xte, yte = sets["t10k"]
    w = Writer()

    rng = SplitMix64(1)
    w.put("u64", "splitmix64.seed1.first8", [rng.next() for _ in range(8)])
    rng = SplitMix64(1)
    w.put("f32", "uniform01.seed1.first8", [rng.uniform01() for _ in range(8)])
    init1 = init_params(1)
    w.put("f32", "init.seed1", init1)
    w.put("f32", "init.seed42", init_params(42))
    w.put("i32", "order.seed1.n128.e0", epoch_order(1, 0, 128))
    w.put("i32", "order.seed1.n128.e1", epoch_order(1, 1, 128))
    w.put("i32", "order.seed7.n10.e3", epoch_order(7, 3, 10))

    sample_grads = []
    for s in range(4):
        loss, grad, f = loss_and_grad(init1, xtr[s:s + 1], ytr[s:s + 1])
        sample_grads.append(grad)
        w.put("i32", f"sample{s}.label", [ytr[s]])
        w.put("f32", f"sample{s}.x", xtr[s])
        for key in ("z1", "a1", "z2", "a2", "z3"):
            w.put("f32", f"sample{s}.{key}", f[key].detach().numpy())
        w.put("f32", f"sample{s}.p", torch.softmax(f["z3"].detach(), dim=1).numpy())
        w.put("f32", f"sample{s}.loss", [loss])
        w.put("f32", f"sample{s}.grad", grad)

    # B = 40 is three chunks (16, 16 and 8 samples): a step that a team of threads or ranks
    # shares, where 1, 4 and 7 are one chunk each.
    for B in (1, 4, 7, 40):
        loss, grad, _ = loss_and_grad(init1, xtr[:B], ytr[:B])
        w.put("f32", f"step.B{B}.loss", [loss])
        w.put("f32", f"step.B{B}.grad", grad)
        w.put("f32", f"step.B{B}.params", sgd(init1, grad, 0.5))

    # The trajectory uses the spec's rate for batch 8 (0.3), at which the network really learns
    # in 64 steps; at 0.5 it saturates to one class and the test would check little.
    traj_lr = np.float32(0.3)
    w.put("f32", "traj.lr", [traj_lr])
    params, losses, sums = init1, [], []
    for epoch in range(4):
        order = epoch_order(1, epoch, N_TRAIN)
        for t in range(N_TRAIN // 8):
            idx = order[8 * t:8 * t + 8]
            loss, grad, _ = loss_and_grad(params, xtr[idx], ytr[idx])
            params = sgd(params, grad, traj_lr)
            losses.append(loss)
            sums.append(checksum(params))
    w.put("f32", "traj.loss", losses)
    w.put("f64", "traj.checksum", sums)
    w.put("f32", "traj.params", params)
    correct, test_loss = evaluate(params, xte, yte)
    w.put("i32", "traj.test.correct", [correct])
    w.put("f32", "traj.test.loss", [test_loss])

    with open(OUT_FILE, "w") as f:
        f.write("# lenet-parallel test vectors, written by tests/vectors/generate.py\n"
                "# (independent PyTorch autograd reference of docs/network.md; format: README.md)\n"
                f"# torch {torch.__version__}, numpy {np.__version__}, python "
                f"{sys.version.split()[0]}, generated {datetime.date.today().isoformat()}\n"
                "lenet-vectors 1\n")
        f.write("\n".join(w.lines) + "\n")
    print(f"wrote {OUT_FILE} ({os.path.getsize(OUT_FILE)} bytes)")
    print(f"traj.loss first {losses[0]:.6f} last {losses[-1]:.6f}; "
          f"test correct {correct}/{N_TEST}, test loss {float(test_loss):.6f}")
    self_check(xtr, ytr, sample_grads)


def self_check(xtr, ytr, sample_grads):
    t = parse(OUT_FILE)
    expect = {"init.seed1": N_PARAMS, "sample0.z1": 3456, "sample0.z2": 216,
              "step.B7.params": N_PARAMS, "traj.loss": 64, "traj.checksum": 64}
    for name, n in expect.items():
        assert len(t[name][1]) == n, name
    assert len(t) == 7 + 4 * 10 + 4 * 3 + 6, len(t)
    init1 = t["init.seed1"][1]
    assert init1.view(np.uint32).tolist() == init_params(1).view(np.uint32).tolist()
    d = np.abs(t["step.B1.grad"][1] - t["sample0.grad"][1]).max()
    print(f"check: |step.B1.grad - sample0.grad|max = {d:.3e}")
    mean4 = np.mean(np.array([t[f"sample{s}.grad"][1] for s in range(4)], np.float64), axis=0)
    d = np.abs(t["step.B4.grad"][1] - mean4).max()
    print(f"check: |step.B4.grad - mean(sample0..3.grad)|max = {d:.3e} "
          f"(grad scale {np.abs(mean4).max():.3e})")
    # float64 redo of the per-sample gradients from the same float32 inputs and parameters;
    # "tol" is the C++ close_enough tolerance at rtol 1e-5 (atol = 1% of rtol * max|want|).
    worst_rel, worst_tol = 0.0, 0.0
    for s in range(4):
        _, g64, _ = loss_and_grad(init1.astype(np.float64), xtr[s:s + 1].astype(np.float64),
                                  ytr[s:s + 1], dtype=torch.float64)
        diff = np.abs(t[f"sample{s}.grad"][1].astype(np.float64) - g64)
        scale = np.abs(g64).max()
        big = np.abs(g64) > 1e-3 * scale
        worst_rel = max(worst_rel, (diff[big] / np.abs(g64[big])).max())
        worst_tol = max(worst_tol, (diff / (1e-7 * scale + 1e-5 * np.abs(g64))).max())
    print(f"check: float32 vs float64 per-sample grads: max rel diff {worst_rel:.3e} "
          f"(elements above 1e-3 of the max), {100 * worst_tol:.0f}% of the rtol 1e-5 tolerance")

if __name__ == "__main__":
    main()
