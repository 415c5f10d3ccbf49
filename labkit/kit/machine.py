"""What the machine is doing: cores, the CPU, and how busy other processes keep it."""
import os
import time

TICK = os.sysconf("SC_CLK_TCK")


def cores():
    return len(os.sched_getaffinity(0))


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def ticks():
    """(busy, total) jiffies of all cores so far."""
    with open("/proc/stat", encoding="utf-8") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
    return busy, busy + v[3] + v[4]


def busy_cores(before, after, own_cpu_seconds=0.0):
    """Cores other processes kept busy between two ticks() readings, less `own_cpu_seconds`
    of CPU time that was ours."""
    busy = (after[0] - before[0]) / TICK - own_cpu_seconds
    total = (after[1] - before[1]) / TICK
    n = os.cpu_count() or 1
    return max(0.0, n * busy / total) if total > 0 else 0.0


def others_busy(seconds=2.0):
    """Cores other processes keep busy while this one sleeps for `seconds`."""
    before = ticks()
    time.sleep(seconds)
    return busy_cores(before, ticks())


def load_average():
    with open("/proc/loadavg", encoding="utf-8") as f:
        return float(f.read().split()[0])
