#!/usr/bin/env python3
"""Write an htsim connection matrix for an all-to-all: every host sends `size` bytes to every
other host, all starting at time 0 (htsim .cm format: uet-htsim sim/datacenter/connection_
matrices; tusk reads it with workload.kind = "htsim").

    make-all-to-all-cm.py HOSTS SIZE_BYTES > all-to-all-64x128KiB.cm

Connections are listed destination-rotated (round r: host i sends to i + r), the order in
which NCCL's all-to-all posts its sends, so that no destination is hit by every sender at once
when a NIC works through its QPs in posting order.
"""
import sys

n = int(sys.argv[1])
size = int(sys.argv[2])
print(f"Nodes {n}")
print(f"Connections {n * (n - 1)}")
cid = 1
for r in range(1, n):
    for i in range(n):
        print(f"{i}->{(i + r) % n} id {cid} start 0 size {size}")
        cid += 1
