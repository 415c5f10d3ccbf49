"""What a tc token bucket (tbf) costs one message per training step, for the simulator.

A tbf qdisc passes bytes while its bucket holds tokens and then releases them at RATE; the
bucket refills at RATE up to BURST bytes (docs/multihost.md, "What the token bucket does").
SimGrid's links are fluid pipes with one bandwidth, so validate.sh simulates a shaped link as
the unshaped wire (the namespace link's own latency and bandwidth) slowed by the bucket's wait:

  beta_eff = n / (n / beta_wire + wait)

wait is the steady state of a bucket that sees one message of n bytes per step and refills
while the rank computes between two messages. Only the shaper's settings (rate, burst) and the
step's compute enter it, never a measured training time.

Usage: token_bucket.py RATE_BPS BURST_B COMPUTE_US ALPHA_US BETA_MBPS
prints "wait_us beta_eff_MBps" for the 9376-byte allreduce message of lenet-mpi.
"""
import math
import sys

MESSAGE = 9376  # bytes: 2343 gradients + the loss, as floats
MSS = 1448  # TCP payload per packet on a 1500-byte MTU (with timestamps)
HEADERS = 66  # Ethernet 14 + IP 20 + TCP 32 bytes per packet, which the bucket counts too


def wire_bytes(n):
    """Bytes the bucket charges for an n-byte message (the other side's ACKs are left out).

    >>> wire_bytes(9376)
    9838
    """
    return n + HEADERS * math.ceil(n / MSS)


def bucket_wait(rate, burst, size, idle, steps=200):
    """Mean seconds a message of `size` bytes waits in the bucket when one is sent after every
    `idle` seconds without traffic, once the bucket's level has settled.

    A message that fits the burst and is refilled in time passes at once:
    >>> bucket_wait(rate=1e6, burst=20000, size=10000, idle=0.02)
    0.0

    With no time to refill, every byte waits for the rate:
    >>> round(bucket_wait(rate=1e6, burst=4000, size=10000, idle=0.0), 6)
    0.01

    In between, what refills while idle passes at once, the rest at the rate:
    >>> round(bucket_wait(rate=1e6, burst=4000, size=10000, idle=0.003), 6)
    0.007

    but never more than the burst, however long the pause:
    >>> round(bucket_wait(rate=1e6, burst=4000, size=10000, idle=0.008), 6)
    0.006
    """
    tokens, waits = burst, []
    for _ in range(steps):
        waits.append(max(0.0, size - tokens) / rate)
        tokens = min(burst, max(0.0, tokens - size) + rate * idle)
    settled = waits[steps // 2:]
    return sum(settled) / len(settled)


def effective_bandwidth(rate, burst, compute, alpha, beta, n=MESSAGE):
    """(wait in s, bandwidth in bytes/s) of the shaped link for one n-byte message per step,
    given the wire's alpha (s) and beta (bytes/s) and the compute (s) between messages."""
    line = alpha + n / beta
    wait = bucket_wait(rate, burst, wire_bytes(n), compute + line)
    return wait, n / (n / beta + wait)


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit("usage: token_bucket.py RATE_BPS BURST_B COMPUTE_US ALPHA_US BETA_MBPS")
    rate, burst, compute_us, alpha_us, beta_mbps = map(float, sys.argv[1:])
    wait, beta_eff = effective_bandwidth(rate, burst, compute_us * 1e-6, alpha_us * 1e-6,
                                         beta_mbps * 1e6)
    print(f"{wait * 1e6:.1f} {beta_eff / 1e6:.4f}")
