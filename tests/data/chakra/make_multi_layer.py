#!/usr/bin/python3
"""Write the multi-layer Chakra trace in multi_layer/ (a test input, checked in).

Four ranks of a data-parallel training step with three layers, written with Debian's protobuf
Python bindings (python3-protobuf) from the project's own schema,
ns3-modules/workload/model/chakra-et.proto (compiled here by protoc into a temporary folder).
Each file is a GlobalMetadata then Node messages, every message preceded by its varint length,
as Chakra's tools write them.

Per rank r (node ids in parentheses, durations in microseconds):
  forward    fwd_L0 (1, 50) -> fwd_L1 (2, 50) -> fwd_L2 (3, 50)        data deps
  embedding  ag_emb (4): ALL_GATHER of 1 MiB on communicator "1" (ranks 0, 1) or "2"
             (ranks 2, 3), after fwd_L0; nothing waits for it but the optimizer
  pipeline   send_act (5): 256 KiB to rank r+1 (tag 7), after fwd_L2;
             recv_act (6): 256 KiB from rank r-1 (tag 7), no dependency
  backward   bwd_L2 (7, 100) after fwd_L2 and recv_act -> bwd_L1 (8, 100) -> bwd_L0 (9, 100)
  gradients  ar_L2 (10), ar_L1 (11), ar_L0 (12): ALL_REDUCE of 4 MiB each on every rank,
             each after its layer's backward: they overlap the backward compute that follows
  optimizer  opt (13, 20): data deps on the three all-reduces, control deps on bwd_L0,
             ag_emb and send_act
Run: /usr/bin/python3 tests/data/chakra/make_multi_layer.py (rewrites multi_layer/).
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "..", "..", "ns3-modules", "workload", "model")
RANKS = 4
MIB = 1 << 20


def load_schema(tmp):
    subprocess.run(["protoc", f"--proto_path={PROTO_DIR}", f"--python_out={tmp}",
                    "chakra-et.proto"], check=True)
    sys.path.insert(0, tmp)
    import importlib
    return importlib.import_module("chakra_et_pb2")


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        pb = load_schema(tmp)

        def node(nid, name, ntype, data=(), ctrl=(), us=0, **attrs):
            n = pb.Node(id=nid, name=name, type=ntype, duration_micros=us)
            n.data_deps.extend(data)
            n.ctrl_deps.extend(ctrl)
            n.attr.add(name="is_cpu_op", bool_val=False)
            for key, value in attrs.items():
                if isinstance(value, str):
                    n.attr.add(name=key, string_val=value)
                else:
                    n.attr.add(name=key, int64_val=value)
            return n

        out_dir = os.path.join(HERE, "multi_layer")
        os.makedirs(out_dir, exist_ok=True)
        for r in range(RANKS):
            nodes = [
                node(1, "fwd_L0", pb.COMP_NODE, us=50),
                node(2, "fwd_L1", pb.COMP_NODE, data=[1], us=50),
                node(3, "fwd_L2", pb.COMP_NODE, data=[2], us=50),
                node(4, "ag_emb", pb.COMM_COLL_NODE, data=[1], comm_type=pb.ALL_GATHER,
                     comm_size=MIB, pg_name="1" if r < 2 else "2"),
                node(5, "send_act", pb.COMM_SEND_NODE, data=[3], comm_src=r,
                     comm_dst=(r + 1) % RANKS, comm_size=256 * 1024, comm_tag=7),
                node(6, "recv_act", pb.COMM_RECV_NODE, comm_src=(r - 1) % RANKS, comm_dst=r,
                     comm_size=256 * 1024, comm_tag=7),
                node(7, "bwd_L2", pb.COMP_NODE, data=[3, 6], us=100),
                node(8, "bwd_L1", pb.COMP_NODE, data=[7], us=100),
                node(9, "bwd_L0", pb.COMP_NODE, data=[8], us=100),
                node(10, "ar_L2", pb.COMM_COLL_NODE, data=[7], comm_type=pb.ALL_REDUCE,
                     comm_size=4 * MIB),
                node(11, "ar_L1", pb.COMM_COLL_NODE, data=[8], comm_type=pb.ALL_REDUCE,
                     comm_size=4 * MIB),
                node(12, "ar_L0", pb.COMM_COLL_NODE, data=[9], comm_type=pb.ALL_REDUCE,
                     comm_size=4 * MIB),
                node(13, "opt", pb.COMP_NODE, data=[10, 11, 12], ctrl=[9, 4, 5], us=20),
            ]
            meta = pb.GlobalMetadata(version="0.0.4")
            with open(os.path.join(out_dir, f"multi_layer.{r}.et"), "wb") as f:
                for m in [meta] + nodes:
                    data = m.SerializeToString()
                    f.write(varint(len(data)) + data)


if __name__ == "__main__":
    main()
