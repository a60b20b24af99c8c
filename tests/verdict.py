#!/usr/bin/env python3
"""One verdict for one position in every interface (run by tests/verdict.sh): feeds the FENs of
tests/verdict.fens to `damka query` (the command line and --batch --json), `damka moves`,
libdamka (its C API through ctypes), the Python package and `damka serve` (GET /brazilian and
/brazilian/mainline), prints the table of what each said, and fails on any answer that is not
the one docs/cli.md gives for the FEN's kind, and on any refusal whose reason differs between
interfaces (one parser: one reason).

Usage: verdict.py DAMKA TABLES (Brazilian tables up to 3 pieces; libdamka.so is looked for next
to DAMKA, the Python package in the repository's python/)."""
import ctypes
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse

DAMKA, TABLES = sys.argv[1:3]
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
LIB = os.path.join(os.path.dirname(os.path.abspath(DAMKA)), "libdamka.so")
import damka  # noqa: E402 (after the path is set)

KINDS = ("answered", "game-over", "not-in-tables", "bad-input")
BAD = "bad FEN for brazilian: "


def cases():
    """(kind, FEN bytes) of tests/verdict.fens."""
    out = []
    with open(os.path.join(HERE, "verdict.fens"), encoding="ascii") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            kind, fen = line.split("\t", 1)
            assert kind in KINDS, line
            out.append((kind, fen.encode("ascii").decode("unicode_escape").encode("latin-1")))
    return out


# Each interface's answer: (kind, reason of a refusal or None, detail for the table).

def of_value(result, dtw):
    return "game-over" if (result, dtw) == ("loss", 0) else "answered"


def query_cli(fen):
    if b"\0" in fen:
        return None  # an argument cannot hold a NUL: --batch reads it
    r = subprocess.run([DAMKA, "query", "--tables", TABLES, fen], capture_output=True)
    out, err = r.stdout.decode("latin-1"), r.stderr.decode("latin-1").strip()
    first = out.split("\n", 1)[0]
    if r.returncode == 0 and re.search(r"  (win|loss) in \d+ pl|  draw", first):
        kind = "game-over" if "  loss in 0 plies" in first else "answered"
        return kind, None, "0 " + first[:40]
    if r.returncode == 1 and err.startswith("damka: query: not in the tables"):
        return "not-in-tables", None, "1"
    if r.returncode == 2 and err.startswith("damka: query: " + BAD) and err.count("\n") == 0:
        # the reason, without the hint the command line adds (a FEN of another variant)
        return "bad-input", re.sub(r" \(a FEN of \w+: pass --variant .*\)$", "", err[len("damka: query: " + BAD):]), "2"
    return "?", None, "%d %r %r" % (r.returncode, first[:60], err[:80])


def query_batch(fens):
    """--batch --json over every FEN at once (NUL bytes included): one object a line, in order."""
    with tempfile.NamedTemporaryFile(suffix=".fens", delete=False) as f:
        f.write(b"\n".join(fens) + b"\n")
    r = subprocess.run([DAMKA, "query", "--tables", TABLES, "--json", "--batch", f.name], capture_output=True)
    os.unlink(f.name)
    lines = r.stdout.decode("utf-8").splitlines()
    assert len(lines) == len(fens), "--batch: %d answers to %d lines: %r" % (len(lines), len(fens), r.stderr)
    out = []
    for line in lines:
        obj = json.loads(line)
        err = obj.get("error")
        if err is None:
            out.append((of_value(obj["result"], obj["dtw"]), None, "json"))
        elif err.startswith("not in the tables"):
            out.append(("not-in-tables", None, "error"))
        elif err.startswith(BAD):
            out.append(("bad-input", err[len(BAD):], "error"))
        else:
            out.append(("?", None, err[:80]))
    return out


def moves(fen):
    """`damka moves`: the rules only, so no table verdict: it answers what is not bad input."""
    if b"\0" in fen:
        return None
    r = subprocess.run([DAMKA, "moves", fen], capture_output=True)
    err = r.stderr.decode("latin-1").strip()
    if r.returncode == 0 and b"no legal move" in r.stdout:
        return "game-over", None, "0 no move"
    if r.returncode == 0:
        return "moves", None, "0"
    if r.returncode == 2 and err.startswith("damka: moves: bad FEN '") and " for brazilian: " in err:
        return "bad-input", err.split(" for brazilian: ", 1)[1], "2"
    return "?", None, "%d %r" % (r.returncode, err[:80])


class Capi:
    """libdamka's own calls: damka_position_from_fen_n, then damka_probe_dtw."""

    class Pos(ctypes.Structure):
        _fields_ = [("white", ctypes.c_uint64), ("black", ctypes.c_uint64), ("kings", ctypes.c_uint64),
                    ("black_to_move", ctypes.c_int)]

    class Value(ctypes.Structure):
        _fields_ = [("wdl", ctypes.c_int), ("dtw", ctypes.c_int)]

    def __init__(self):
        self.lib = lib = ctypes.CDLL(LIB)
        lib.damka_open.restype = ctypes.c_void_p
        lib.damka_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_int)]
        lib.damka_position_from_fen_n.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                                  ctypes.POINTER(self.Pos)]
        lib.damka_probe_dtw.argtypes = [ctypes.c_void_p, ctypes.POINTER(self.Pos), ctypes.POINTER(self.Value)]
        lib.damka_last_error.restype = ctypes.c_char_p
        st = ctypes.c_int()
        self.tb = lib.damka_open(TABLES.encode(), b"brazilian", 8, ctypes.byref(st))
        assert self.tb, "damka_open: status %d" % st.value

    def __call__(self, fen):
        pos, val = self.Pos(), self.Value()
        st = self.lib.damka_position_from_fen_n(self.tb, fen, len(fen), ctypes.byref(pos))
        if st == 0:
            st = self.lib.damka_probe_dtw(self.tb, ctypes.byref(pos), ctypes.byref(val))
        why = self.lib.damka_last_error().decode("latin-1")
        if st == 0:
            return of_value({1: "win", -1: "loss", 0: "draw"}[val.wdl], val.dtw if val.wdl else None), None, "OK"
        if st == 1:
            return "not-in-tables", None, "NOT_IN_TABLES"
        if st == 3:
            return "bad-input", why, "BAD_POSITION"
        return "?", None, "status %d %s" % (st, why)


def python(tb, fen):
    try:
        p = tb.probe(fen)
    except damka.NotInTables:
        return "not-in-tables", None, "NotInTables"
    except damka.BadPosition as e:
        return ("bad-input" if isinstance(e, ValueError) else "?"), str(e), "BadPosition"
    except damka.Error as e:
        return "?", None, repr(e)
    return of_value(p.result, p.dtw), None, "Probe"


def start_server():
    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
    p = subprocess.Popen([DAMKA, "serve", "--tables", TABLES, "--listen", "127.0.0.1:0", "--threads", "2"],
                         stderr=log, stdout=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", open(log.name).read())
        if m:
            return p, int(m.group(1)), log.name
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    sys.exit("FAIL: damka serve did not start: " + open(log.name).read())


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, json.loads(body.decode("utf-8"))


def serve(port, fen):
    q = urllib.parse.quote(fen, safe="")
    status, obj = get(port, "/brazilian?fen=" + q)
    line_status, _ = get(port, "/brazilian/mainline?fen=" + q)
    detail = "%d/%d" % (status, line_status)
    if status == 200 and obj.get("category") == "unknown" and line_status == 404:
        return "not-in-tables", None, detail
    if status == 200 and line_status == 200:
        over = obj.get("checkmate") is True and obj.get("dtm") == 0 and obj.get("moves") == []
        return ("game-over" if over else "answered"), None, detail
    if status == 400 and line_status == 400 and obj.get("error", "").startswith(BAD):
        return "bad-input", obj["error"][len(BAD):], detail
    return "?", None, "%s %r" % (detail, obj)


def main():
    todo = cases()
    capi = Capi()
    tb = damka.open_tables(TABLES, library=LIB)
    server, port, log = start_server()
    batch = query_batch([fen for _, fen in todo])
    names = ("query", "batch", "moves", "libdamka", "python", "serve")
    fails = []
    print("   %-14s %-28s %s" % ("kind", "FEN", "  ".join("%-13s" % n for n in names)))
    try:
        for (kind, fen), in_batch in zip(todo, batch):
            got = dict(zip(names, (query_cli(fen), in_batch, moves(fen), capi(fen), python(tb, fen), serve(port, fen))))
            shown = repr(fen)[2:-1]
            shown = shown if len(shown) <= 28 else shown[:25] + "..."
            print("   %-14s %-28s %s" % (kind, shown, "  ".join("%-13s" % (g[2] if g else "-")[:13] for g in got.values())))
            reasons = {}
            for name, g in got.items():
                if g is None:
                    continue
                # `moves` knows no tables: a position beyond them, or any it answers, lists moves
                want = {"not-in-tables": "moves", "answered": "moves"}.get(kind, kind) if name == "moves" else kind
                if g[0] != want:
                    fails.append("%s %r: %s says %s (%s), docs/cli.md says %s" % (kind, fen, name, g[0], g[2], want))
                if g[1] is not None:
                    reasons.setdefault(g[1], []).append(name)
            if len(reasons) > 1:
                fails.append("%r: the reasons differ: %s" % (fen, "; ".join("%s: %r" % (",".join(v), k)
                                                                             for k, v in reasons.items())))
    finally:
        server.terminate()
        server.wait(timeout=30)
        tb.close()
        os.unlink(log)
    for f in fails:
        print("FAIL: " + f)
    print("verdict.py: %d FENs through %d interfaces, %s" % (len(todo), len(names),
                                                             "%d failure(s)" % len(fails) if fails else "one verdict each"))
    return 1 if fails else 0


sys.exit(main())
