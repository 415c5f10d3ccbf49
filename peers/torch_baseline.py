#!/usr/bin/env python3
"""The PyTorch baseline: the network of docs/network.md as a user would write it in PyTorch
(nn.Module, autograd, torch.optim.SGD), trained on the same data with the same initial
parameters, epoch order, batch and rate as the C++ backends, and timed the same way: the training
loop only, with the data already in memory (on the device for --device cuda).

It prints the same summary block as the C++ executables and appends the same CSV row (--csv),
so tables put it beside them. Initialisation and shuffling come from the vector generator
(tests/vectors/generate.py), itself written from the spec.

  /usr/bin/python3 peers/torch_baseline.py --data data/fashion --batch 32 --threads 1
"""
import argparse
import datetime
import gzip
import math
import os
import socket
import struct
import sys
import time
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "vectors"))
from generate import epoch_order, init_params  # noqa: E402  (spec-exact init and shuffle)

FLOPS_PER_SAMPLE = 401614.0  # docs/performance.md


class LeNet(nn.Module):
    def __init__(self, flat):
        super().__init__()
        p = torch.from_numpy(flat)
        sizes = [150, 6, 16, 1, 2160, 10]
        W1, b1, W2, b2, W3, b3 = torch.split(p, sizes)
        self.W1 = nn.Parameter(W1.reshape(6, 1, 5, 5).clone())
        self.b1 = nn.Parameter(b1.clone())
        self.W2 = nn.Parameter(W2.reshape(1, 1, 4, 4).clone())
        self.b2 = nn.Parameter(b2.clone())
        self.W3 = nn.Parameter(W3.reshape(10, 216).clone())
        self.b3 = nn.Parameter(b3.clone())

    def forward(self, x):  # x: [B, 1, 28, 28] in [0, 1]
        B = x.shape[0]
        a1 = torch.sigmoid(F.conv2d(x, self.W1, self.b1))
        # S1: one shared 4x4 kernel, stride 4, on each of the 6 maps separately.
        z2 = F.conv2d(a1.reshape(B * 6, 1, 24, 24), self.W2, self.b2, stride=4)
        a2 = torch.sigmoid(z2.reshape(B, 216))
        return F.linear(a2, self.W3, self.b3)

    def flat(self):
        return torch.cat([p.detach().reshape(-1).cpu() for p in self.parameters()]).numpy()


def load_split(directory, prefix):
    def find(kind, idx):
        for sep in ("-", "."):
            for ext in ("", ".gz"):
                path = f"{directory}/{prefix}-{kind}{sep}{idx}-ubyte{ext}"
                if os.path.isfile(path):
                    return path
        sys.exit(f"torch_baseline.py: error: --data: no {prefix} {kind} file in '{directory}'")

    def read(path):
        with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
            raw = f.read()
        magic, n = struct.unpack(">II", raw[:8])
        if magic == 0x803:
            return np.frombuffer(raw, np.uint8, n * 784, 16).reshape(n, 1, 28, 28)
        return np.frombuffer(raw, np.uint8, n, 8)

    return read(find("images", "idx3")), read(find("labels", "idx1"))


def read_checkpoint(path):
    """The parameters of a LENETCK1 checkpoint (format: README.md), CRC checked."""
    raw = open(path, "rb").read()
    if raw[:8] != b"LENETCK1" or len(raw) != 8 + 4 + 4 * 2343 + 4:
        sys.exit(f"torch_baseline.py: error: {path}: not a LENETCK1 checkpoint")
    if zlib.crc32(raw[:-4]) != struct.unpack("<I", raw[-4:])[0]:
        sys.exit(f"torch_baseline.py: error: {path}: checkpoint CRC-32 mismatch")
    return np.frombuffer(raw, "<f4", 2343, 12)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (CPU)")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--train-limit", type=int, default=0)
    ap.add_argument("--test-limit", type=int, default=0)
    ap.add_argument("--csv", help="append one row (the C++ executables' columns)")
    ap.add_argument("--verify", help="compare the final parameters with a LENETCK1 checkpoint")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    if a.verify and not os.path.isfile(a.verify):
        sys.exit(f"torch_baseline.py: error: --verify: {a.verify}: no such file")
    if a.batch < 1 or a.epochs < 0 or not math.isfinite(a.lr) or a.lr <= 0 or a.threads < 1:
        sys.exit("torch_baseline.py: error: --batch, --epochs, --lr and --threads must be positive")

    torch.set_num_threads(a.threads)
    # float32 as the C++ backends compute it: no TF32 rounding in convolutions and matrix
    # products on Ampere and newer GPUs (PyTorch's default for cuDNN convolutions).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device(a.device)
    t0 = time.perf_counter()
    xtr, ytr = load_split(a.data, "train")
    xte, yte = load_split(a.data, "t10k")
    if a.train_limit:
        xtr, ytr = xtr[:a.train_limit], ytr[:a.train_limit]
    if a.test_limit:
        xte, yte = xte[:a.test_limit], yte[:a.test_limit]
    # pixel / 255 as a float32 division, as the spec says; the whole set lives on the device.
    to_x = lambda u8: (torch.from_numpy(u8.astype(np.float32)) / np.float32(255.0)).to(dev)
    xtr_t, xte_t = to_x(xtr), to_x(xte)
    ytr_t, yte_t = torch.from_numpy(ytr.astype(np.int64)).to(dev), torch.from_numpy(
        yte.astype(np.int64)).to(dev)
    load_s = time.perf_counter() - t0

    model = LeNet(init_params(a.seed)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    n = len(ytr)
    train_s, final_loss = 0.0, float("nan")
    for epoch in range(a.epochs):
        order = torch.tensor(epoch_order(a.seed, epoch, n), device=dev)
        loss_sum = torch.zeros((), device=dev)
        if dev.type == "cuda":
            torch.cuda.synchronize()
        t = time.perf_counter()
        for first in range(0, n, a.batch):
            idx = order[first:first + a.batch]
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xtr_t[idx]), ytr_t[idx])
            loss.backward()
            opt.step()
            loss_sum += loss.detach() * len(idx)
        if dev.type == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t
        train_s += seconds
        final_loss = loss_sum.item() / n
        if not a.quiet:
            print(f"epoch {epoch + 1}/{a.epochs}  train loss {final_loss:.4f}  {seconds:.3f} s  "
                  f"{n / seconds:.0f} img/s", flush=True)

    with torch.no_grad():
        correct, test_loss = 0, 0.0
        for first in range(0, len(yte), 1000):
            z = model(xte_t[first:first + 1000])
            y = yte_t[first:first + 1000]
            correct += int((z.argmax(1) == y).sum())
            test_loss += float(F.cross_entropy(z, y, reduction="sum"))
    params = model.flat()
    checksum = float(np.sum(np.arange(1, len(params) + 1, dtype=np.float64) * params))
    crc = zlib.crc32(params.astype("<f4").tobytes())
    per_epoch = train_s / a.epochs if a.epochs else 0.0
    ips = n * a.epochs / train_s if train_s else 0.0
    acc = 100.0 * correct / len(yte)
    device = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"
    verification, max_abs, identical = "NOT PERFORMED", "", ""
    if a.verify:
        ref = read_checkpoint(a.verify)
        diff = float(np.max(np.abs(params.astype(np.float64) - ref)))
        max_abs, identical = f"{diff:.3e}", "yes" if np.array_equal(params, ref) else "no"
        # the C++ driver's rule: within 1e-4 of the largest reference parameter
        ok = diff <= 1e-4 * float(np.max(np.abs(ref)))
        verification = "SUCCESSFUL" if ok else "UNSUCCESSFUL"
    rows = [("Backend", "pytorch"), ("Kernels", f"torch {torch.__version__}"),
            ("Strategy", "eager"), ("Threads", a.threads), ("Ranks", 1), ("Device", device),
            ("Data", a.data), ("Train images", n), ("Test images", len(yte)),
            ("Epochs", a.epochs), ("Batch", a.batch), ("Learning rate", f"{a.lr:g}"),
            ("Seed", a.seed), ("Load time (s)", f"{load_s:.3f}"),
            ("Time per epoch (s)", f"{per_epoch:.4f}"), ("Images per second", f"{ips:.0f}"),
            ("GFLOP/s", f"{ips * FLOPS_PER_SAMPLE * 1e-9:.2f}"),
            ("Final train loss", f"{final_loss:.6f}"),
            ("Test loss", f"{test_loss / len(yte):.6f}"), ("Test accuracy (%)", f"{acc:.2f}"),
            ("Param checksum", f"{checksum:.10e}"), ("Param CRC-32", f"{crc:08x}"),
            ("Verification", verification + (f" (max |diff| {max_abs})" if max_abs else ""))]
    print("\n ============================ lenet-parallel ============================")
    for k, v in rows:
        print(f" {k:<22} = {v}")
    print(" ========================================================================")

    if a.csv:
        header = ("timestamp,backend,kernels,strategy,threads,ranks,device,batch,lr,seed,epochs,"
                  "train_images,test_images,seconds_per_epoch,images_per_s,gflops,test_accuracy,"
                  "test_loss,final_loss,comm_seconds,checksum,param_crc32,verification,max_abs_diff,"
                  "bit_identical,c1_forward,s1_forward,f_forward,f_backward,s1_backward,"
                  "c1_backward,reduce,update,host,slurm_job_id,slurm_nnodes,hosts\n")
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        # Quoted, a quote inside doubled (RFC 4180): GPU names may hold commas and quotes.
        quoted_device = '"' + device.replace('"', '""') + '"'
        row = (f"{stamp},pytorch,torch-{torch.__version__},eager,{a.threads},1,{quoted_device},"
               f"{a.batch},{a.lr:g},{a.seed},{a.epochs},{n},{len(yte)},{per_epoch:.6f},"
               f"{ips:.1f},{ips * FLOPS_PER_SAMPLE * 1e-9:.3f},{acc:.4f},"
               f"{test_loss / len(yte):.6f},{final_loss:.6f},0,{checksum:.10e},{crc:08x},"
               f"{verification},{max_abs},{identical}" + ",0" * 8 +
               f",{socket.gethostname()},{os.environ.get('SLURM_JOB_ID', '')},"
               f"{os.environ.get('SLURM_JOB_NUM_NODES', '')},1\n")
        old = open(a.csv).read() if os.path.exists(a.csv) else ""
        tmp = f"{a.csv}.tmp.{socket.gethostname()}.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write((old or header) + row)
        os.replace(tmp, a.csv)
    return 1 if verification == "UNSUCCESSFUL" else 0


if __name__ == "__main__":
    sys.exit(main())
