#!/usr/bin/env python3
"""compare.py: differential check of the C worker against `tpb disasm`.

Used by check.sh. Collects the real bundles of every NEFF program under the
corpus folders (each engine stream that `tpb neff unpack` marks with a .tpb
text twin), generates random bundles for every opcode byte 0..255, decodes each
set with `tpb disasm` and with the worker executable, and compares the answers
field by field, by meaning: numbers in any base, dtype/enum names against their
tags (the name tables are read from the generated C header, not from Rust).

Prints the counts compared and every disagreement (the first 20 of each kind);
exits 1 on any disagreement, 2 on a setup error.
"""
import argparse
import collections
import ctypes
import os
import random
import re
import subprocess
import sys
import threading

GENS = ("v2", "v3", "v4")


def die(msg):
    print("compare.py: " + msg, file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------- header enums

def header_enums(path):
    """{enum typedef name: {value name: tag}} from the C header's enum blocks;
    the value name is the one the member comment opens with."""
    text = open(path, encoding="utf-8").read()
    enums = {}
    for body, name in re.findall(r"typedef enum \{(.*?)\}\s*(\w+);", text, re.S):
        values = {}
        for tag, vname in re.findall(r"=\s*(0x[0-9a-fA-F]+),\s*/\*\s*([A-Za-z0-9_]+)", body):
            values[vname] = int(tag, 16)
        enums[name] = values
    return enums


class Meaning:
    """Normalises a value token so that equal meanings compare equal."""

    def __init__(self, enums):
        self.dtype = enums.get("NEURON_ISA_TPB_DTYPE", {})
        self.by_field = {
            "alu_op": enums.get("NEURON_ISA_TPB_ALU_OP", {}),
            "op0": enums.get("NEURON_ISA_TPB_ALU_OP", {}),
            "op1": enums.get("NEURON_ISA_TPB_ALU_OP", {}),
            "alu_0c": enums.get("NEURON_ISA_TPB_ALU_OP", {}),
            "func": enums.get("NEURON_ISA_TPB_POOL_FUNC", {}),
            "cmp_op": enums.get("NEURON_ISA_TPB_SEMAPHORE_CMP_OP", {}),
            "subtype": enums.get("NEURON_ISA_TPB_SEMAPHORE_SUBTYPE", {}),
            "comp_op": enums.get("NEURON_ISA_TPB_BRANCH_COMP_OP", {}),
        }
        self.any_name = {}
        for values in enums.values():
            for vname, tag in values.items():
                self.any_name.setdefault(vname, set()).add(tag)

    def table(self, field):
        leaf = field.rsplit(".", 1)[-1]
        if "dtype" in leaf:
            return self.dtype
        return self.by_field.get(leaf)

    def scalar(self, field, v):
        if re.fullmatch(r"0x[0-9a-fA-F]+", v):
            return ("num", int(v, 16))
        if re.fullmatch(r"-?[0-9]+", v):
            return ("num", int(v, 10))
        table = self.table(field)
        if table is not None and v in table:
            return ("num", table[v])
        if table is None and v in self.any_name and len(self.any_name[v]) == 1:
            return ("num", next(iter(self.any_name[v])))
        return ("text", v)

    def norm(self, field, v):
        if v.startswith("[") and v.endswith("]"):
            inner = v[1:-1]
            return ("array", tuple(self.scalar(field, x) for x in inner.split(",")) if inner else ())
        if "/" in v:
            return ("pair", tuple(self.scalar(field, x) for x in v.split("/")))
        if field.endswith("_nibbles") or field.startswith("dtypes_"):
            # a packed dtype pair printed as one hex byte: split it as low/high
            s = self.scalar(field, v)
            if s[0] == "num" and 0 <= s[1] <= 0xFF:
                return ("pair", (("num", s[1] & 0xF), ("num", s[1] >> 4)))
            return s
        return self.scalar(field, v)

    def same(self, field, a, b):
        if a == b:
            return True
        # contiguous hex byte arrays (no 0x) compare as text, case-insensitively
        if re.fullmatch(r"[0-9a-fA-F]{3,}", a) and re.fullmatch(r"[0-9a-fA-F]{3,}", b):
            return a.lower() == b.lower()
        return self.norm(field, a) == self.norm(field, b)


# ---------------------------------------------------------------- parsing

def parse_disasm_line(line):
    """(opcode, [(path, value)]) of one `tpb disasm` line."""
    body = line.split(" # ", 1)[0].strip()
    toks = body.split()
    head = toks[0]
    m = re.fullmatch(r"0x([0-9a-fA-F]{2}):\S*", head)
    if not m:
        raise ValueError("unexpected disasm line: " + line[:120])
    fields = []
    for t in toks[1:]:
        k, _, v = t.partition("=")
        fields.append((k, v))
    return int(m.group(1), 16), fields


def parse_worker_line(line):
    toks = line.split()
    if not toks or toks[0] == "error" or not toks[0].startswith("opcode="):
        return None, line
    fields = []
    for t in toks[1:]:
        k, _, v = t.partition("=")
        fields.append((k, v))
    return int(toks[0][len("opcode="):], 0), fields


# ---------------------------------------------------------------- comparison

class Report:
    def __init__(self, meaning):
        self.meaning = meaning
        self.kinds = collections.OrderedDict()
        self.compared = collections.Counter()
        self.identical = collections.Counter()

    def add(self, kind, text):
        lst = self.kinds.setdefault(kind, [0, []])
        lst[0] += 1
        if len(lst[1]) < 20:
            lst[1].append(text)

    def compare(self, label, bundle, where, gen, dline, wline):
        self.compared[label] += 1
        op, dfields = parse_disasm_line(dline)
        text = " ".join(["opcode=0x%02x" % op] + ["%s=%s" % kv for kv in dfields])
        if text == wline:
            self.identical[label] += 1
            return
        wop, wfields = parse_worker_line(wline)
        ctx = "%s %s [%s] %s" % (label, where, gen, bundle.hex())
        if wop is None:
            self.add("worker error", "%s\n      worker: %s" % (ctx, wline))
            return
        if wop != op:
            self.add("opcode", "%s\n      disasm 0x%02x, worker 0x%02x" % (ctx, op, wop))
            return
        dmap, wmap = dict(dfields), dict(wfields)
        for k, _ in dfields:
            if k not in wmap:
                self.add("missing field in worker: op 0x%02x %s" % (op, k), ctx)
        for k, _ in wfields:
            if k not in dmap:
                self.add("extra field in worker: op 0x%02x %s" % (op, k), ctx)
        dkeys = [k for k, _ in dfields if k in wmap]
        wkeys = [k for k, _ in wfields if k in dmap]
        if dkeys != wkeys:
            self.add("field order: op 0x%02x" % op,
                     "%s\n      disasm %s\n      worker %s" % (ctx, " ".join(dkeys), " ".join(wkeys)))
        for k, dv in dfields:
            if k in wmap and not self.meaning.same(k, dv, wmap[k]):
                self.add("value: op 0x%02x %s" % (op, k),
                         "%s\n      disasm %s=%s  worker %s=%s" % (ctx, k, dv, k, wmap[k]))

    def total(self):
        return sum(n for n, _ in self.kinds.values())

    def print(self):
        for label, n in self.compared.items():
            same = self.identical.get(label)
            extra = "" if same is None else " (%d identical to disasm as text)" % same
            print("compared %-9s %d%s" % (label, n, extra))
        if not self.kinds:
            print("disagreements: 0")
            return
        print("disagreements: %d in %d kinds" % (self.total(), len(self.kinds)))
        for kind, (n, examples) in self.kinds.items():
            print("== %s: %d" % (kind, n))
            for e in examples:
                print("   " + e)


# ---------------------------------------------------------------- inputs

def real_bundles(tpb, folders, work):
    """[(bundle bytes, generation, where)] of every distinct real bundle."""
    neffs = []
    for folder in folders:
        if os.path.isfile(folder) and folder.endswith(".neff"):
            neffs.append(folder)
            continue
        for root, _, files in os.walk(folder):
            neffs.extend(os.path.join(root, f) for f in files if f.endswith(".neff"))
    neffs.sort()
    seen = {}
    total = 0
    for i, neff in enumerate(neffs):
        summary = subprocess.run([tpb, "neff", neff], capture_output=True, text=True).stdout
        m = re.search(r"target: .*-> (v[234])", summary)
        gen = m.group(1) if m else "v2"
        out = os.path.join(work, "unpack%d" % i)
        r = subprocess.run([tpb, "neff", "unpack", neff, out], capture_output=True, text=True)
        if r.returncode != 0:
            print("warning: cannot unpack %s: %s" % (neff, r.stderr.strip()))
            continue
        for root, _, files in os.walk(out):
            for f in sorted(files):
                if not f.endswith(".tpb"):
                    continue
                stream = os.path.join(root, f[:-4] + ".bin")
                data = open(stream, "rb").read()
                rel = os.path.relpath(stream, out)
                for j in range(0, len(data) - len(data) % 64, 64):
                    b = data[j:j + 64]
                    total += 1
                    if b not in seen:
                        seen[b] = (gen, "%s:%s[%d]" % (os.path.basename(neff), rel, j // 64))
        subprocess.run(["rm", "-rf", out])
    print("real: %d NEFF programs, %d bundles, %d distinct" % (len(neffs), total, len(seen)))
    return [(b, g, w) for b, (g, w) in seen.items()]


def random_bundles(per_opcode, seed, real):
    rng = random.Random(seed)
    small = list(range(0x20)) + [0x7F, 0x80, 0xFE, 0xFF]
    out = []
    for op in range(256):
        for k in range(per_opcode):
            mode = k % 4
            if mode == 1:    # small values: hits dtype/enum names and short numbers
                b = bytearray(rng.choice(small) if rng.random() < 0.7 else rng.randrange(256)
                              for _ in range(64))
            elif mode == 2 and real:  # a real bundle re-stamped with this opcode, a few bytes flipped
                b = bytearray(rng.choice(real)[0])
                for _ in range(rng.randrange(4)):
                    b[rng.randrange(2, 64)] = rng.randrange(256)
            else:            # uniform bytes
                b = bytearray(rng.randbytes(64))
            b[0] = op
            if mode != 3:
                b[1] = 0x10
            out.append((bytes(b), GENS[k % 3], "op 0x%02x #%d" % (op, k)))
    # the extremes: all bytes equal, for every opcode
    for op in range(256):
        for fill in (0x00, 0x7F, 0x80, 0xFF):
            b = bytearray([fill] * 64)
            b[0] = op
            out.append((bytes(b), "v4", "op 0x%02x fill 0x%02x" % (op, fill)))
    return out


def run_disasm(tpb, bundles, path):
    with open(path, "wb") as f:
        for b, _, _ in bundles:
            f.write(b)
    r = subprocess.run([tpb, "disasm", path], capture_output=True, text=True)
    if r.returncode != 0:
        die("tpb disasm failed: " + r.stderr.strip())
    lines = [l for l in r.stdout.splitlines() if l and not l.startswith("#")]
    if len(lines) != len(bundles):
        die("tpb disasm printed %d lines for %d bundles" % (len(lines), len(bundles)))
    return lines


def run_worker(worker, bundles):
    req = "".join("decode %s %s\n" % (g, b.hex()) for b, g, _ in bundles)
    r = subprocess.run([worker], input=req, capture_output=True, text=True)
    if r.returncode != 0:
        die("worker exited %d: %s" % (r.returncode, r.stderr.strip()))
    lines = r.stdout.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(bundles):
        die("worker printed %d lines for %d requests" % (len(lines), len(bundles)))
    return lines


# ---------------------------------------------------------------- transport and library checks

def check_transport(worker, report):
    cases = [
        ("encode v2 01", "unsupported"),
        ("validate v3 " + "00" * 64, "unsupported"),
        ("decode v5 " + "00" * 64, "error"),
        ("decode v2 " + "00" * 63, "error"),
        ("decode v2 " + "zz" * 64, "error"),
        ("decode v2", "error"),
        ("decode v2 " + "00" * 64 + " extra", "error"),
        ("", "error"),
        ("decode v2 " + "A1" + "10" + "00" * 62 + "\r", "opcode=0xa1"),
        ("decode v4 " + "x" * 10000, "error"),
    ]
    req = "".join(c + "\n" for c, _ in cases)
    r = subprocess.run([worker], input=req, capture_output=True, text=True)
    lines = r.stdout.split("\n")[:-1]
    report.compared["transport"] += len(cases)
    if r.returncode != 0 or len(lines) != len(cases):
        report.add("transport", "exit %d, %d answers for %d requests" % (r.returncode, len(lines), len(cases)))
        return
    for (c, want), got in zip(cases, lines):
        if not got.startswith(want):
            report.add("transport", "request %r -> %r (want %s...)" % (c[:40], got[:80], want))

    # interactive use: each answer must arrive before the next request is sent
    p = subprocess.Popen([worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    timer = threading.Timer(10, p.kill)
    timer.start()
    try:
        for op in range(0, 256, 17):
            report.compared["transport"] += 1
            p.stdin.write("decode v3 %02x10%s\n" % (op, "00" * 62))
            p.stdin.flush()
            got = p.stdout.readline()
            if not got.startswith("opcode=0x%02x " % op):
                report.add("transport", "interactive request for op 0x%02x -> %r" % (op, got[:60]))
                break
        p.stdin.close()
        if p.wait() != 0:
            report.add("transport", "interactive worker exited %d" % p.returncode)
    finally:
        timer.cancel()


def check_library(lib, bundles, worker_lines, report):
    so = ctypes.CDLL(lib)
    fn = so.tpb_worker_decode
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
    fn.restype = ctypes.c_int
    buf = ctypes.create_string_buffer(4096)
    for (b, g, where), want in zip(bundles, worker_lines):
        report.compared["library"] += 1
        n = fn(int(g[1]), b, buf, len(buf))
        got = buf.value.decode()
        if got != want or n != len(want):
            report.add("library != executable", "%s: lib %r (%d) exe %r" % (where, got[:60], n, want[:60]))
            continue
        for cap in (0, 1, 7, n, n + 1):   # snprintf semantics
            small = ctypes.create_string_buffer(b"\xaa" * (cap + 1), cap + 1)
            m = fn(int(g[1]), b, small if cap else None, cap)
            ok = m == n
            if cap:
                ok = ok and small.raw[:cap] == (want[:cap - 1] + "\0").encode()
            ok = ok and small.raw[cap:cap + 1] == b"\xaa"
            if not ok:
                report.add("library capacity", "%s: capacity %d returned %d (full %d), buffer %r"
                           % (where, cap, m, n, small.raw[:20]))
    n = fn(7, bundles[0][0], buf, len(buf))
    report.compared["library"] += 1
    if not buf.value.startswith(b"error "):
        report.add("library", "generation 7 answered %r" % buf.value[:60])


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tpb", required=True)
    ap.add_argument("--worker", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--header", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--per-opcode", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bench-input", help="write a sample of bundles (raw) here for bench")
    ap.add_argument("corpus", nargs="*")
    a = ap.parse_args()

    report = Report(Meaning(header_enums(a.header)))
    real = real_bundles(a.tpb, a.corpus, a.work) if a.corpus else []
    rand = random_bundles(a.per_opcode, a.seed, real)
    print("random: %d bundles (%d per opcode byte, seed %d, plus 4 fills each)"
          % (len(rand), a.per_opcode, a.seed))

    for label, bundles in (("real", real), ("random", rand)):
        if not bundles:
            continue
        dlines = run_disasm(a.tpb, bundles, os.path.join(a.work, label + ".bin"))
        wlines = run_worker(a.worker, bundles)
        for (b, g, where), d, w in zip(bundles, dlines, wlines):
            report.compare(label, b, where, g, d, w)
        if label == "random":
            check_library(a.lib, bundles[:: max(1, len(bundles) // 3000)],
                          wlines[:: max(1, len(bundles) // 3000)], report)
    check_transport(a.worker, report)

    if a.bench_input:
        sample = [b for b, _, _ in real[:2048]] + [b for b, _, _ in rand[:: max(1, len(rand) // 2048)]]
        with open(a.bench_input, "wb") as f:
            f.write(b"".join(sample))

    report.print()
    sys.exit(1 if report.total() else 0)


if __name__ == "__main__":
    main()
