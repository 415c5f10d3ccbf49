"""multihost_wire.py: the switch of multihost.sh --latency, a network emulator in user space.

multihost.sh's hosts are network namespaces. Normally a kernel bridge joins them, and tc's token
bucket (tbf) can limit their bandwidth, but not every kernel can add latency (sch_netem is often
missing). This program is the switch instead: it makes one TUN device per host (the host's eth0
once multihost.sh has moved it into the host's namespace), reads every IPv4 packet a host
sends, and hands it to the destination host as a store-and-forward switch with these ports
would:

  host a --uplink--> switch --downlink--> host b

Each uplink and downlink is a wire of one bandwidth (RATE bytes/s, one packet at a time, in
order, no burst credit) and half the one-way LATENCY. So a packet of n bytes sent on idle
links arrives LATENCY + 2 n / RATE later, and packets that meet on a link queue behind each
other, as on a real Ethernet. A rate of 0 means no bandwidth limit, latency only.

Every time is an event on one clock (time.monotonic): a packet's departure from its uplink
sets its arrival at the switch, and downlinks serve packets in the order they reach the
switch, whichever host sent them. Run it at a real-time priority (multihost.sh uses chrt), or
ranks that busy-wait on the same cores delay its events.

Usage: multihost_wire.py RATE_BPS LATENCY_US NAME=ADDRESS...
  prints "ready" once the TUN devices exist; runs until SIGTERM or SIGINT, then prints what
  crossed each port and the longest a packet waited in a queue.
"""
import fcntl
import heapq
import ipaddress
import os
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000  # IP packets, no extra header before them
FRAMING = 38  # bytes an Ethernet wire adds to each IP packet: header, FCS, preamble, gap


def open_tun(name):
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


class Wire:
    """One direction of one port: packets leave one after another at the rate."""

    def __init__(self, rate):
        self.rate = rate
        self.free_at = 0.0  # when the last packet queued here has left
        self.longest_wait = 0.0
        self.packets = self.bytes = 0

    def send(self, now, size):
        """Queues a packet of `size` bytes arriving `now`; returns when its last bit leaves."""
        start = max(now, self.free_at)
        self.longest_wait = max(self.longest_wait, start - now)
        self.free_at = start + (size + FRAMING) / self.rate if self.rate else start
        self.packets += 1
        self.bytes += size
        return self.free_at


def main(argv):
    if len(argv) < 4:
        sys.exit("usage: multihost_wire.py RATE_BPS LATENCY_US NAME=ADDRESS NAME=ADDRESS...")
    rate, half_latency = float(argv[1]), float(argv[2]) * 1e-6 / 2
    ports = {}  # IPv4 address (4 bytes) -> port number
    names, fds = [], []
    for i, pair in enumerate(argv[3:]):
        name, _, address = pair.partition("=")
        ports[ipaddress.IPv4Address(address).packed] = i
        names.append(name)
        fds.append(open_tun(name))
    port_of_fd = {fd: i for i, fd in enumerate(fds)}
    up = [Wire(rate) for _ in fds]
    down = [Wire(rate) for _ in fds]
    dropped = 0
    events = []  # (time, sequence, stage, port, packet); the sequence keeps equal times in order
    sequence = 0

    stop = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.append(True))
    print("ready", flush=True)

    while not stop:
        now = time.monotonic()
        while events and events[0][0] <= now:
            when, _, stage, port, packet = heapq.heappop(events)
            if stage == "switch":  # reached the switch: queue on the destination's downlink
                left = down[port].send(when, len(packet))
                heapq.heappush(events, (left + half_latency, sequence, "host", port, packet))
                sequence += 1
            else:
                try:
                    os.write(fds[port], packet)
                except OSError:  # the host's eth0 is down (set-up or teardown): lost, as on a wire
                    dropped += 1
        timeout = max(0.0, events[0][0] - now) if events else 1.0
        try:
            readable, _, _ = select.select(fds, [], [], timeout)
        except InterruptedError:
            continue
        now = time.monotonic()
        for fd in readable:
            while True:
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                except OSError:  # the device is gone: its namespace was deleted (teardown)
                    stop.append(True)
                    break
                destination = ports.get(packet[16:20]) if packet[0] >> 4 == 4 else None
                if destination is None:  # IPv6 or outside the hosts: no such host behind the switch
                    dropped += 1
                    continue
                left = up[port_of_fd[fd]].send(now, len(packet))
                heapq.heappush(events, (left + half_latency, sequence, "switch", destination, packet))
                sequence += 1

    for i, name in enumerate(names):
        print(f"{name}: sent {up[i].packets} packets ({up[i].bytes} B), received "
              f"{down[i].packets} ({down[i].bytes} B), longest queue wait "
              f"{max(up[i].longest_wait, down[i].longest_wait) * 1e3:.2f} ms")
    print(f"dropped {dropped} packets (IPv6, unknown addresses, or sent to a host whose link was down)")


if __name__ == "__main__":
    main(sys.argv)
