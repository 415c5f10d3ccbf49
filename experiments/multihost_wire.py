"""multihost_wire.py: the switch of multihost.sh --latency, a network emulator in user space.

multihost.sh's hosts are network namespaces. Normally a kernel bridge joins them, and tc's token
bucket (tbf) can limit their bandwidth, but not every kernel can add latency (sch_netem is often
missing). This program is the switch instead: it makes one TUN device per host (the host's eth0
once multihost.sh has moved it into the host's namespace), reads every IPv4 packet a host
sends, and hands it to the destination host as a store-and-forward switch with these ports
would:

  host a --uplink--> switch --downlink--> host b

Each uplink and downlink is a wire of one bandwidth (RATE bytes/s, one packet at a time, in
order, no burst credit) and half the one-way LATENCY. So an IP packet of n bytes sent on idle
links arrives LATENCY + 2 (n + 38) / RATE later (38: Ethernet's framing), and packets that meet
on a link queue behind each other, as on a real Ethernet; one that would queue longer than
400 ms is dropped, as multihost.sh's token buckets do. A rate of 0 means no bandwidth limit,
latency only.

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
MAX_QUEUE = 0.4  # seconds a packet may wait for a link before it is dropped


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
        self.packets = self.bytes = self.dropped = 0

    def send(self, now, size):
        """Queues a packet of `size` bytes arriving `now`; returns when its last bit leaves, or
        None when the queue is too long and the packet is dropped."""
        start = max(now, self.free_at)
        if start - now > MAX_QUEUE:
            self.dropped += 1
            return None
        self.longest_wait = max(self.longest_wait, start - now)
        self.free_at = start + (size + FRAMING) / self.rate if self.rate else start
        self.packets += 1
        self.bytes += size
        return self.free_at


class Stop(Exception):
    """SIGTERM or SIGINT, or a host's device gone: the switch stops at once."""


def stop(*_):
    raise Stop


class Switch:
    def __init__(self, rate, latency, ports):
        """ports: (TUN device name, IPv4 address) per host."""
        self.half_latency = latency / 2
        self.names = [name for name, _ in ports]
        self.fds = [open_tun(name) for name in self.names]
        self.port_of_fd = {fd: i for i, fd in enumerate(self.fds)}
        self.port_of_address = {
            ipaddress.IPv4Address(address).packed: i for i, (_, address) in enumerate(ports)}
        self.up = [Wire(rate) for _ in ports]
        self.down = [Wire(rate) for _ in ports]
        self.events = []  # (time, sequence, stage, port, packet); sequence: equal times in order
        self.sequence = 0
        self.lost = 0  # IPv6, unknown addresses, or a host whose link was down

    def schedule(self, when, stage, port, packet):
        heapq.heappush(self.events, (when, self.sequence, stage, port, packet))
        self.sequence += 1

    def receive(self, fd, now):
        """Every packet host fd has sent, onto its uplink, towards the switch."""
        while True:
            try:
                packet = os.read(fd, 65536)
            except BlockingIOError:
                return
            except OSError:  # the device is gone: its namespace was deleted (teardown)
                raise Stop
            ipv4 = packet[0] >> 4 == 4
            destination = self.port_of_address.get(packet[16:20]) if ipv4 else None
            if destination is None:
                self.lost += 1
                continue
            left = self.up[self.port_of_fd[fd]].send(now, len(packet))
            if left is not None:
                self.schedule(left + self.half_latency, "switch", destination, packet)

    def deliver_due(self, now):
        """Moves every packet whose time has come: at the switch onto the destination's
        downlink, at the end of the downlink into the destination host."""
        while self.events and self.events[0][0] <= now:
            when, _, stage, port, packet = heapq.heappop(self.events)
            if stage == "switch":
                left = self.down[port].send(when, len(packet))
                if left is not None:
                    self.schedule(left + self.half_latency, "host", port, packet)
                continue
            try:
                os.write(self.fds[port], packet)
            except OSError:  # the host's eth0 is down (set-up or teardown): lost, as on a wire
                self.lost += 1

    def run(self):
        while True:
            now = time.monotonic()
            self.deliver_due(now)
            timeout = max(0.0, self.events[0][0] - now) if self.events else 1.0
            readable, _, _ = select.select(self.fds, [], [], timeout)
            now = time.monotonic()
            for fd in readable:
                self.receive(fd, now)

    def report(self):
        for i, name in enumerate(self.names):
            up, down = self.up[i], self.down[i]
            print(f"{name}: sent {up.packets} packets ({up.bytes} B), received {down.packets} "
                  f"({down.bytes} B), longest queue wait "
                  f"{max(up.longest_wait, down.longest_wait) * 1e3:.2f} ms, dropped "
                  f"{up.dropped + down.dropped} for queues over {MAX_QUEUE * 1e3:.0f} ms")
        print(f"dropped {self.lost} other packets (IPv6, unknown addresses, or sent to a host "
              "whose link was down)")


def main(argv):
    if len(argv) < 4:
        sys.exit("usage: multihost_wire.py RATE_BPS LATENCY_US NAME=ADDRESS NAME=ADDRESS...")
    ports = [tuple(pair.split("=", 1)) for pair in argv[3:]]
    switch = Switch(float(argv[1]), float(argv[2]) * 1e-6, ports)
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stop)
    print("ready", flush=True)
    try:
        switch.run()
    except Stop:
        pass
    switch.report()


if __name__ == "__main__":
    main(sys.argv)
