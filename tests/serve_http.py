#!/usr/bin/env python3
"""HTTP tests of `damka serve` (run by tests/serve.sh): every endpoint and error, the answers
against `damka query --json` for the same FENs, the lichess fields lidraughts' client reads (and a
model of that client, serve_lidraughts.py), CORS, caching and gzip, hostile input (huge headers,
path traversal, bad UTF-8, malformed requests, 2,000 idle or trickling connections from one
client), a damaged and a missing table, tables replaced under the server, SIGTERM.

Usage: serve_http.py DAMKA TABLES SHORT TMP (TABLES: Brazilian and Russian up to 4 pieces,
International up to 3; SHORT: Brazilian up to 3 pieces under a 1-move draw rule, rich in cursed wins; TMP:
scratch space)."""
import gzip
import http.client
import atexit
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import serve_lidraughts as lidraughts
from serve_support import restrict, start_server

DAMKA, TABLES, SHORT, TMP = sys.argv[1:5]
CAT = {"loss": -2, "blessed-loss": -1, "draw": 0, "cursed-win": 1, "win": 2}
NAME = {v: k for k, v in CAT.items()}
fails = []
servers = []  # every server started: killed at exit if a check raised before it was stopped
atexit.register(lambda: [p.kill() for p in servers if p.poll() is None])


def check(ok, what):
    if not ok:
        fails.append(what)
        print("FAIL: " + what)
    return ok


def start(tables, name, *options):
    """Starts a server on a free loopback port; returns (process, port, log path)."""
    log_path = os.path.join(TMP, name + ".log")
    p, port = start_server(DAMKA, tables, log_path, *options)
    if p is None:
        sys.exit("FAIL: damka serve did not start: " + port)
    servers.append(p)
    return p, port, log_path


def request(port, method, path, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def get_json(port, path, want=200, method="GET", body=None, headers=None):
    """The JSON of a reply that must have status `want`, CORS and a JSON type."""
    status, h, data = request(port, method, path, body, headers)
    check(status == want, "%s %s: status %d, expected %d: %r" % (method, path, status, want, data[:300]))
    check(h.get("content-type", "").startswith("application/json"), "%s %s: content type %s" % (method, path, h.get("content-type")))
    check(h.get("access-control-allow-origin") == "*", "%s %s: no CORS header" % (method, path))
    try:
        obj = json.loads(data.decode("utf-8"))
    except ValueError:
        check(False, "%s %s: not JSON: %r" % (method, path, data[:300]))
        return None, h
    if want >= 400:
        check(isinstance(obj, dict) and isinstance(obj.get("error"), str), "%s %s: no error field" % (method, path))
    return obj, h


def query(fen, counter=None, variant="brazilian"):
    args = [DAMKA, "query", "--tables", TABLES, "--variant", variant, "--json"] + \
        (["--counter", str(counter)] if counter is not None else [])
    out = subprocess.run(args + [fen], capture_output=True, text=True)
    return json.loads(out.stdout) if out.returncode == 0 else None


def url(fen, counter=None, variant="brazilian", tail=""):
    q = "?fen=" + fen.replace("%", "%25").replace(" ", "%20")
    return "/" + variant + tail + q + ("&counter=%d" % counter if counter is not None else "")


def check_lichess(obj, what):
    """The lichess tablebase fields agree with damka's own (docs/api.md)."""
    sign = lambda r: 1 if r == "win" else -1
    rule = obj["rule"]
    check(obj["category"] == rule["category"] and obj["wdl"] == CAT[rule["category"]], what + ": category, wdl")
    if rule["category"] in ("win", "loss"):
        check(obj["dtz"] == obj["dtc"] == sign(rule["category"]) * rule["dtc"], what + ": dtz, dtc")
    check(obj["dtm"] == (None if obj["result"] == "draw" else sign(obj["result"]) * obj["dtw"]), what + ": dtm")
    check(obj["checkmate"] == (not obj["moves"]), what + ": checkmate")
    for m in obj["moves"]:
        mw = "%s %s" % (what, m["notation"])
        check(m["uci"][:2] == "%02d" % m["from"] and m["uci"][-2:] == "%02d" % m["to"], mw + ": uci")
        check(re.fullmatch(r"\d+[-x]\d+(\(.*\))?", m["san"]) is not None, mw + ": san " + m["san"])
        if m["captures"]:
            check(m["zeroing"], mw + ": a capture is zeroing")
        check(m["dtm"] == (None if m["result"] == "draw" else -sign(m["result"]) * (m["dtw"] - 1)), mw + ": dtm")
        check(m["checkmate"] == (m["result"] == "win" and m["dtw"] == 1), mw + ": checkmate")
        if m["rule"] is not None:
            check(m["wdl"] == -CAT[m["rule"]["category"]] and m["category"] == NAME[m["wdl"]], mw + ": wdl, category")
            if m["rule"]["dtc"] is not None and not m["zeroing"]:
                check(m["dtz"] == -sign(m["rule"]["category"]) * (m["rule"]["dtc"] - 1), mw + ": dtz")


def raw(port, data, wait=5.0):
    """Sends bytes on a fresh connection; returns what comes back until it closes (or wait)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    got = b""
    try:
        s.sendall(data)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except OSError:  # reset after an oversized request, or the timeout
        pass
    s.close()
    return got


def alive(s):
    """Whether the server keeps connection s open (s non-blocking)."""
    try:
        return s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def hostile(per_client=32, deadline=3):
    """One client opens 2,000 connections, each with half a request, and sends a header line on
    each every half second: the server keeps at most per_client of them, answers /health from
    another address (127.0.0.2) within a second meanwhile, and cuts the trickling ones at the
    deadline of a request's headers, which their activity does not put off."""
    p, port, log = start(SHORT, "hostile", "--deadline", str(deadline))
    socks, t0 = [], time.time()
    for _ in range(2000):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.setblocking(False)
            s.sendall(b"GET /health HTTP/1.1\r\nHo")
            socks.append(s)
        except OSError:  # refused or reset: the server sheds them
            pass
    opened = time.time() - t0  # the first ones opened at t0, the last ones `opened` later
    time.sleep(0.3)
    live = [s for s in socks if alive(s)]
    check(0 < len(live) <= per_client, "2000 connections from one client: %d kept open" % len(live))
    t = time.time()
    other = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.0.0.2", 0))
    other.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    got = b""
    while True:
        chunk = other.recv(65536)
        if not chunk:
            break
        got += chunk
    other.close()
    took = time.time() - t
    check(got.startswith(b"HTTP/1.1 200") and b'"status": "ok"' in got and took < 1,
          "/health from another client while one holds 2000 connections: %.2f s, %r" % (took, got[:40]))
    kept = []
    while time.time() - t0 < opened + deadline + 1:
        for s in live:
            try:
                s.sendall(b"X-Slow: a\r\n")
            except OSError:
                pass
        kept.append((time.time() - t0, sum(alive(s) for s in live)))
        time.sleep(0.5)
    check(all(n == len(live) for at, n in kept if at < deadline - 0.2) and kept[-1][1] == 0,
          "trickling connections against a %d s deadline (opened in %.2f s): %s" % (deadline, opened, kept))
    for s in socks:
        s.close()
    obj, _ = get_json(port, "/health")
    check(obj is not None, "/health after the hostile client left")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=15) == 0 and "connections cut at their deadline" in open(log).read(), "SIGTERM after hostile clients")
    print("   2000 connections from one client: %d kept, /health from another in %.3f s, cut at the %d s deadline" %
          (len(live), took, deadline))


# Russian positions answered by GET /russian as `damka query --variant russian` answers them; the
# first three are RUSSIAN_RULES'.
RUSSIAN = [("W:W11:B7,9,K29", None), ("W:W22:B18,11,17", None), ("B:W26,24,K4:B22", None),
           ("W:WK25,K29:BK4", None), ("W:WK25,K29:BK4", 29), ("W:WK25,K26,K27:BK29", None), ("B:W18:BK1", None),
           ("W:W22,23:BK3", None), ("B:WK1,K2:B20,21", 7), ("W:W11:B7,9", None)]
# Positions where the two rules in which Russian differs from Brazilian (docs/rules.md) give other
# moves, each with its moves in both variants as worked out by hand (notation: uci):
# a man crowned during a capture goes on as a king (f6xd8, then over b6 to a5; c3xe1, then over
# g3 to h4), and no majority rule (c3xa5 over b4 is legal beside c3xg7 over d4 and f6).
RUSSIAN_RULES = [("W:W11:B7,9,K29", {"russian": {"f6xa5": "110213"}, "brazilian": {"f6xd8": "1102"}}),
                 ("W:W22:B18,11,17", {"russian": {"c3xa5": "2213", "c3xg7": "221508"}, "brazilian": {"c3xg7": "221508"}}),
                 ("B:W26,24,K4:B22", {"russian": {"c3xh4": "223120"}, "brazilian": {"c3xe1": "2231"}})]


def russian_rules(port):
    """GET /russian and GET /brazilian give the moves of RUSSIAN_RULES, each with its path."""
    for fen, want in RUSSIAN_RULES:
        for variant, moves in want.items():
            obj, _ = get_json(port, url(fen, variant=variant))
            got = obj and {m["notation"]: m["uci"] for m in obj["moves"]}
            check(got == moves, "GET /%s %s: moves %s, by hand %s" % (variant, fen, got, moves))
    print("   Russian: %d positions where its rules give other moves than Brazilian's" % len(RUSSIAN_RULES))


def lidraughts_client(port, positions):
    """lidraughts' explorer client (serve_lidraughts.py, with the change docs/api.md proposes)
    reads every answer right; each move's members are those of the position after it."""
    def get(path):
        return get_json(port, path)[0]
    for variant, fen, counter in positions:
        n = 10 if variant == "international" else 8
        res = lidraughts.check_position(get, check, "standard" if variant == "international" else variant, fen, n,
                                        4 if n == 8 else 3, counter)
        if res:
            lidraughts.check_children(get, check, variant, res, n)
    # today's winnerOf throws on a draughts FEN: the change is needed
    try:
        lidraughts.winner_of_today("W:WK25,K29:BK4:H0:F1", {"wdl": -2})
        check(False, "lidraughts' winnerOf of today reads a draughts FEN")
    except TypeError:
        pass


def multi_captures(port, variant, n, pieces, fixed):
    """Every capture of two pieces or more met in random positions (a fixed seed) and in `fixed`
    has its whole path in `uci`, a legal one (checked by serve_lidraughts.path_problem)."""
    rng = random.Random(55)
    fens, nsq = list(fixed), n * n // 2
    while len(fens) < 256:
        squares = rng.sample(range(1, nsq + 1), pieces)
        kings = [rng.random() < 0.5 for _ in squares]
        half = (pieces + 1) // 2
        w = [("K" if k else "") + str(s) for s, k in zip(squares[:half], kings[:half]) if k or s > n // 2]
        b = [("K" if k else "") + str(s) for s, k in zip(squares[half:], kings[half:]) if k or s <= nsq - n // 2]
        if w and b:
            fens.append("%s:W%s:B%s" % (rng.choice("WB"), ",".join(w), ",".join(b)))
    answers, _ = get_json(port, "/%s/batch" % variant, method="POST", body="\n".join(fens))
    seen = {"man": 0, "king": 0}
    for a in answers or []:
        if "error" in a or a["category"] == "unknown":
            continue
        side, board = lidraughts.parse_fen(a["fen"])
        for m in a["moves"]:
            if len(m["captures"]) < 2:
                continue
            seen["king" if board[m["from"]][1] else "man"] += 1
            squares = [int(k) for k in lidraughts.decompose_uci(m["uci"])]
            problem = lidraughts.path_problem(n, side, board, squares, m["captures"],
                                              variant in lidraughts.CROWNS_IN_CAPTURE)
            check(problem is None and len(squares) == len(m["captures"]) + 1,
                  "%s %s: uci %s: %s" % (a["fen"], m["notation"], m["uci"], problem))
    check(seen["man"] > 0 and seen["king"] > 0, "%s multi-captures met: %s" % (variant, seen))
    print("   %s: %d multi-captures of men and %d of kings, a legal path in uci" % (variant, seen["man"], seen["king"]))


def cursed(port):
    """Under a 1-move rule (L = 2) many wins are cursed at counter 0: their dtz is L + 1, a bound
    (precise_dtz null), the sign the winner's; a win cursed only by the counter keeps its stored
    DTC as dtz, precise. lidraughts' client lists the moves under the rule's headings."""
    fens = ["W:WK%d,K%d:BK%d" % (a, b, c) for a in range(1, 33, 3) for b in range(2, 33, 5) for c in range(3, 33, 7)
            if len({a, b, c}) == 3][:256]
    answers, _ = get_json(port, "/brazilian/batch", method="POST", body="\n".join(fens))
    found = {"cursed": None, "decided": None}
    for a in answers or []:
        if "error" in a:
            continue
        if a["category"] == "cursed-win" and not found["cursed"]:
            found["cursed"] = a
        if a["category"] == "win" and a["rule"]["dtc"] == 2 and not found["decided"]:
            found["decided"] = a
    a = found["cursed"]
    if check(a is not None, "no cursed win at counter 0 under a 1-move rule"):
        check(a["wdl"] == 1 and a["dtz"] == 3 and a["precise_dtz"] is None and a["dtc"] is None,
              "a cursed win at counter 0: %s" % a)
        lost = [m for m in a["moves"] if m["wdl"] == -1]
        check(lost and all(m["dtz"] is not None and m["dtz"] < 0 for m in lost), "its cursed moves' dtz: %s" % lost)
        lidraughts.check_position(lambda path: get_json(port, path)[0], check, "brazilian", a["fen"], 8, 3, 0)
    a = found["decided"]
    if check(a is not None, "no win with DTC 2 under a 1-move rule"):
        b, _ = get_json(port, url(a["fen"], 1))
        check(b and b["category"] == "cursed-win" and b["dtz"] == 2 and b["precise_dtz"] == 2,
              "a win cursed by the counter: %s" % b)


def fens_of(wm, wk, bk, n, seed):
    """n positions of White's wm men and wk kings against bk black kings, White to move, with
    what damka query says of them (a man on its promotion row is not one)."""
    rnd, out = random.Random(seed), {}
    while len(out) < n:
        sq = rnd.sample(range(1, 33), wm + wk + bk)
        fen = "W:W" + ",".join([str(s) for s in sq[:wm]] + ["K%d" % s for s in sq[wm:wm + wk]]) + \
            ":B" + ",".join("K%d" % s for s in sq[wm + wk:])
        want = query(fen) if fen not in out else None
        if want is not None:
            out[fen] = want
    return out


def changed_under_server(positions):
    """Table files changed in place under a running server (truncated, rewritten, deleted): the
    process lives on, a changed table's positions answer right or 500 "damaged" (the library
    reads the files, it does not map them: no SIGBUS), every other material right; SIGHUP
    opens the files as they are now."""
    d = os.path.join(TMP, "changed")
    shutil.copytree(TABLES, d)
    cut, rewritten, deleted = (os.path.join(d, "brazilian-%s.dtw" % m) for m in ("1m2k-0m1k", "2m1k-0m1k", "0m3k-0m1k"))
    groups = {"cut": fens_of(1, 2, 1, 40, 1), "rewritten": fens_of(2, 1, 1, 40, 2), "deleted": fens_of(0, 3, 1, 10, 3),
              "others": {f: query(f) for v, f, c in positions  # W:WK25,K26,K27:BK29 is of the deleted file
                         if v == "brazilian" and c is None and f != "W:WK25,K26,K27:BK29"}}
    p, port, log = start(d, "changed")

    def answers(group, first=None):
        """How many of group's positions (the first `first`) answer right, and how many 500 "damaged"."""
        right = bad = 0
        for f, want in list(groups[group].items())[:first]:
            try:
                status, _, body = request(port, "GET", url(f))
            except (OSError, http.client.HTTPException):  # the server died (SIGBUS, as it did when it mapped the files)
                status, body = 0, b""
            right += status == 200 and restrict(json.loads(body), want) == want
            bad += status == 500 and b"damaged" in body
        return right, bad
    # every table open, half the positions of the changed ones read (their blocks cached)
    for group in groups:
        first = 20 if group in ("cut", "rewritten") else None
        right, _ = answers(group, first)
        check(right == len(list(groups[group])[:first]), "%s before the changes: %d right" % (group, right))
    os.truncate(cut, os.path.getsize(cut) // 2)
    data = open(rewritten, "rb").read()
    with open(rewritten, "wb") as f:  # cp: the same file cut to nothing, then written
        f.write(data)
    os.unlink(deleted)
    for group in groups:
        right, bad = answers(group)
        n = len(groups[group])
        if group in ("cut", "rewritten"):
            check(right + bad == n and bad > 0, "%s in place under the server: %d right, %d damaged of %d" % (group, right, bad, n))
        else:  # a deleted file stays whole for the server that has it open
            check(right == n, "%s under the server: %d of %d right" % (group, right, n))
    if not check(p.poll() is None, "the server died when a table changed under it: exit %s" % p.poll()):
        return
    get_json(port, "/health")
    p.send_signal(signal.SIGHUP)  # a new handle: the rewritten file is whole again
    deadline = time.time() + 10
    while time.time() < deadline and "opened again" not in open(log).read():
        time.sleep(0.1)
    for group in ("rewritten", "others"):
        right, _ = answers(group)
        check(right == len(groups[group]), "after SIGHUP %s: %d of %d right" % (group, right, len(groups[group])))
    request(port, "GET", url(list(groups["deleted"])[0]))  # what it answers is serve's concern, not this test's
    check(p.poll() is None, "the server died on a deleted table after SIGHUP")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=15) == 0, "SIGTERM after tables changed under the server")


def main():
    p, port, log = start(TABLES, "serve")
    positions = [("W:WK25,K29:BK4", None), ("W:WK25,K29:BK4", 29), ("W:WK25,K29:BK4", 30), ("W:WK25,K26,K27:BK29", None),
                 ("W:Wb6:Bc7,e7", None), ("B:W18:BK1", None), ("W:W18:BK1", None), ("W:W29:B25,22", None),
                 ("B:WK1,K2:B20,21", 7), ("W:W22,23:BK3", None), ("B:W9,K30:B24", 3)]
    positions = [("brazilian", f, c) for f, c in positions] + \
        [("international", f, c) for f, c in [("W:WK46:BK5", None), ("W:W30:BK1", None), ("B:W30:BK1", 12),
                                              ("W:WK46,K47:BK5", None), ("B:W6:B45", None)]] + \
        [("russian", f, c) for f, c in RUSSIAN]
    compared = 0
    for variant, fen, counter in positions:
        want = query(fen, counter, variant)
        if not check(want is not None, "damka query --variant %s %s fails" % (variant, fen)):
            continue
        obj, h = get_json(port, url(fen, counter, variant))
        if obj is None:
            continue
        check(restrict(obj, want) == want, "GET %s counter %s differs from damka query: %s" % (fen, counter, obj))
        check_lichess(obj, fen)
        check(h.get("cache-control", "").startswith("public") and h.get("etag"), fen + ": not cacheable")
        compared += 1
    print("   %d positions answered as damka query answers them" % compared)
    russian_rules(port)
    lidraughts_client(port, positions)
    multi_captures(port, "brazilian", 8, 4, ["W:W32:B27,19", "W:W29:B25,18", "B:W13,14:B5", "B:WK30,K31:B22"])
    multi_captures(port, "international", 10, 3, ["W:W46:B41,32", "B:W28,19:B14", "W:WK46:B37,19"])
    multi_captures(port, "russian", 8, 4, [f for f, _ in RUSSIAN_RULES] + ["W:W32:B27,19", "B:WK30,K31:B22"])

    # the same position in other forms: algebraic squares, lidraughts' :H and :F fields
    a, _ = get_json(port, url("W:WK25,K29:BK4"))
    b, _ = get_json(port, url("W:WKb2,Ka1:BKh8"))
    c, _ = get_json(port, url("W:WK25,K29:BK4:H0:F1"))
    check(a == b == c, "the same position in other forms gets another answer")
    a, _ = get_json(port, url("W:W30:BK1", 2, variant="international"))
    b, _ = get_json(port, url("W:W30:BK1:H2:F40", 2, variant="standard"))
    check(a == b, "/standard (lidraughts' name) answers otherwise than /international")
    # lidraughts' :H field is not the rule's counter (it counts from the move that made a drawn
    # material): accepted and ignored, as every interface does; the counter is `counter`
    a, _ = get_json(port, url("W:WK25,K29:BK4"))
    b, _ = get_json(port, url("W:WK25,K29:BK4:H29:F12"))
    check(a == b and a["rule"]["counter"] == 0, ":H29 taken as the counter: %s" % (b and b["rule"]))
    a, _ = get_json(port, url("W:WK25,K29:BK4", 29))
    b, _ = get_json(port, url("W:WK25,K29:BK4:H3:F12", 29))
    check(a == b and a["category"] == "cursed-win", "counter 29 with an :H field: %s" % (b and b["rule"]))
    a, _ = get_json(port, url("W:WK25,K29:BK4"))
    b, _ = get_json(port, url("W:WK25,K29:BK4") + "&counter=")
    check(a == b, "an empty counter is not 0")

    # caching: the same ETag twice, 304 with If-None-Match
    _, h1, body1 = request(port, "GET", url("W:WK25,K29:BK4"))
    _, h2, _ = request(port, "GET", url("W:WK25,K29:BK4"))
    check(h1.get("etag") and h1.get("etag") == h2.get("etag"), "the ETag changes between two requests")
    for inm in (h1.get("etag", ""), "*", '"x", W/' + h1.get("etag", ""), h1.get("etag", "")[:-1] + '-gz"'):
        status, h, body = request(port, "GET", url("W:WK25,K29:BK4"), headers={"If-None-Match": inm})
        check(status == 304 and body == b"" and "content-length" not in h and "transfer-encoding" not in h and
              h.get("etag") and h.get("cache-control", "").startswith("public"),
              "If-None-Match %s: status %d %s" % (inm, status, h))
    status, _, _ = request(port, "GET", url("W:WK25,K29:BK4"), headers={"If-None-Match": '"other"'})
    check(status == 200, "If-None-Match of another ETag: %d" % status)
    status, _, _ = request(port, "GET", "/health", headers={"If-None-Match": "*"})
    check(status == 200, "If-None-Match: * on /health (not cacheable): %d" % status)

    # gzip for large answers when the request takes it, the same body; small ones as they are
    for ae, want in (("gzip", True), ("deflate, gzip;q=0.5", True), ("br, *", True), ("gzip;q=0", False),
                     ("identity", False), (None, False)):
        status, h, data = request(port, "GET", url("W:WK25,K29:BK4"), headers={"Accept-Encoding": ae} if ae else {})
        got = h.get("content-encoding") == "gzip"
        check(status == 200 and got == want and "accept-encoding" in h.get("vary", "").lower() and
              (gzip.decompress(data) if got else data) == body1,
              "Accept-Encoding %s: %d %s" % (ae, status, h.get("content-encoding")))
        check(not got or h.get("etag") != h1.get("etag"), "a gzip answer has the ETag of the plain one")
    _, h, _ = request(port, "GET", "/health", headers={"Accept-Encoding": "gzip"})
    check("content-encoding" not in h, "a small answer is compressed")

    # outside the tables: category unknown; mainline 404
    obj, _ = get_json(port, url("W:W14,15,29,30:B20,24"))
    check(obj and obj["category"] == "unknown" and obj["moves"] == [] and "6 pieces" in obj["reason"], "6 pieces: %s" % obj)
    get_json(port, url("W:W14,15,29,30:B20,24", tail="/mainline"), 404)

    # mainline: each move is damka query's best at the counter reached, to the end of the game
    obj, _ = get_json(port, url("W:WK25,K29:BK4", tail="/mainline"))
    if obj:
        fen, counter = "W:WK25,K29:BK4", 0
        for step in obj["mainline"]:
            best = query(fen, counter)
            check(best["moves"][0]["notation"] == step["notation"], "mainline at %s: %s, query's best %s" %
                  (fen, step["notation"], best["moves"][0]["notation"]))
            counter = 0 if step["zeroing"] else counter + 1
            fen = step["fen"]
        last = query(fen, counter)
        check(obj["winner"] == "white" and last["moves"] == [] and obj["end"] == "no legal move: Black has lost",
              "mainline: %s" % obj)
        check(len(obj["mainline"]) == obj["dtm"], "mainline: %d plies, dtm %s" % (len(obj["mainline"]), obj["dtm"]))
    obj, _ = get_json(port, url("W:WK32:BK1", tail="/mainline"))
    check(obj and obj["mainline"] == [] and obj["winner"] is None, "mainline of a draw: %s" % obj)

    # batch: one FEN a line and a JSON array give the answers GET gives, in order
    fens = ["W:WK25,K29:BK4", "W:Wb6:Bc7,e7", "nonsense", "W:W14,15,29,30:B20,24"]
    singles = [get_json(port, url(f), want)[0] for f, want in zip(fens, (200, 200, 400, 200))]
    text, _ = get_json(port, "/brazilian/batch", method="POST", body="\n".join(fens + ["# a comment", ""]))
    array, _ = get_json(port, "/brazilian/batch", method="POST", body=json.dumps(fens))
    check(text == array, "batch: the JSON array and the lines differ")
    check(text is not None and len(text) == 4 and text[0] == singles[0] and text[1] == singles[1] and
          text[3] == singles[3] and "error" in text[2], "batch answers differ from GET's")
    get_json(port, "/brazilian/batch", 413, "POST", json.dumps(["W:WK25:BK4"] * 257))
    get_json(port, "/brazilian/batch", 413, "POST", "W:WK25:BK4\n" * 7000)
    get_json(port, "/brazilian/batch", 400, "POST", '["W:WK25:BK4", 3]')
    get_json(port, "/brazilian/batch", 400, "POST", '["W:WK25:BK4"')
    get_json(port, "/brazilian/batch", 400, "POST", "W:WK25:BK4\0")
    obj, _ = get_json(port, "/brazilian/batch", method="POST", body="")
    check(obj == [], "an empty batch: %s" % obj)
    # JSON escapes are read (\u too), a bad counter is the request's error, not each FEN's
    escaped, _ = get_json(port, "/brazilian/batch", method="POST",
                          body='["\\u0057:WK25,K29:BK4", "W:Wb6:Bc7,\\u0065\\u0037"]')
    check(escaped == text[:2], "a JSON batch with \\u escapes: %s" % escaped)
    obj, _ = get_json(port, "/brazilian/batch", method="POST", body='["\\ud83d\\ude00\\t"]')
    # decoded, then refused by the FEN reader and echoed as every interface quotes input
    check(obj and obj[0]["fen"] == "\\xf0\\x9f\\x98\\x80\\t" and "error" in obj[0], "a surrogate pair: %s" % obj)
    for bad in ('["W:WK25:BK4\\u0000"]', '["\\ud800"]', '["\\uzzzz"]', '["\\q"]', '["W:WK25\n:BK4"]'):
        get_json(port, "/brazilian/batch", 400, "POST", bad)
    for counter in ("x", "31", "-1"):
        get_json(port, "/brazilian/batch?counter=" + counter, 400, "POST", "W:WK25:BK4")
    obj, _ = get_json(port, "/brazilian/batch?counter=29", method="POST", body="W:WK25,K29:BK4")
    check(obj and obj[0]["category"] == "cursed-win", "a batch at counter 29: %s" % obj)

    # errors: statuses and JSON
    for path, want in [("/brazilian", 400), (url("W:WK25,K29:BK"), 400), (url("W:WK25:BK4", 31), 400),
                       ("/brazilian?fen=W:WK25:BK4&counter=x", 400), ("/brazilian?fen=W:WK25:BK4&counter=-1", 400),
                       (url("W:W" + ",".join(["1"] * 200) + ":B2"), 400), (url("W:WK25,K29:BK4", variant="frisian"), 404),
                       (url("W:WK25:BK4", variant="Brazilian"), 404), (url("W:WK46:BK5", variant="20"), 404),
                       (url("W:WK46,K47,K48:BK5", variant="international"), 200),
                       ("/brazilian/nothing", 404), ("/nothing", 404), ("/brazilian/", 404), ("/health/x", 404),
                       ("/brazilian?fen=%ff%fe%80", 400), ("/brazilian?fen=W%00:WK1:BK2", 400)]:
        get_json(port, path, want)
    for path, want in [("/brazilian/mainline", "GET /brazilian/mainline?fen="), (url("x", tail="/mainline"), "bad FEN"),
                       (url("W:WK25:BK4", 31, tail="/mainline"), "counter")]:
        obj, _ = get_json(port, path, 400)
        check(obj and "fen" in obj and want in obj["error"], "a main line's error: %s" % obj)
    get_json(port, "/brazilian", 405, method="POST", body="x")
    get_json(port, "/brazilian/batch", 405)
    get_json(port, "/health", 405, method="DELETE")

    # CORS preflight (404 for a path that is none), the icon browsers ask for, /health, /stats, the page
    status, h, _ = request(port, "OPTIONS", "/brazilian")
    check(status == 204 and "GET" in h.get("access-control-allow-methods", "") and
          h.get("access-control-allow-origin") == "*", "OPTIONS: %d %s" % (status, h))
    status, h, _ = request(port, "OPTIONS", "/brazilian/batch")
    check(status == 204 and "POST" in h.get("access-control-allow-methods", ""), "OPTIONS batch: %d %s" % (status, h))
    status, _, _ = request(port, "OPTIONS", "/nonexist")
    check(status == 404, "OPTIONS /nonexist: %d" % status)
    status, h, body = request(port, "GET", "/favicon.ico")
    check(status == 204 and body == b"" and "content-length" not in h, "GET /favicon.ico: %d %s" % (status, h))
    obj, _ = get_json(port, "/health")
    check(obj == {"status": "ok", "variants": ["brazilian", "international", "russian"], "missing": [], "missing_count": 0},
          "/health: %s" % obj)
    status, h, body = request(port, "GET", "/")
    check(status == 200 and h.get("content-type", "").startswith("text/html") and b"<svg" in body and
          b"</html>" in body, "GET /: %d %s" % (status, h.get("content-type")))
    status, h, body = request(port, "HEAD", "/health")
    check(status == 200 and body == b"", "HEAD /health: %d %r" % (status, body))

    # hostile input: the server answers with an error or closes, and keeps serving
    got = raw(port, b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 300000 + b"\r\n\r\n")
    check(got == b"" or re.match(rb"HTTP/1\.1 4\d\d", got), "a huge header: %r" % got[:100])
    got = raw(port, b"GET /health HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(5000)) + b"\r\n")
    check(got == b"" or re.match(rb"HTTP/1\.1 4\d\d", got), "many headers: %r" % got[:100])
    for path in [b"/../../../../etc/passwd", b"/brazilian/../../../etc/passwd", b"/%2e%2e/%2e%2e/etc/passwd",
                 b"/brazilian-0m1k-0m1k.dtw", b"/manifest.json", b"//etc/passwd"]:
        got = raw(port, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        check(re.match(rb"HTTP/1\.1 40\d", got) and b"root:" not in got and b"variants" not in got,
              "GET %s: %r" % (path, got[:120]))
    for junk in [b"NONSENSE\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"\xff\xfe\x00\x01\r\n\r\n",
                 b"GET /health HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
                 b"POST /brazilian/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\nW:WK25:BK4"]:
        got = raw(port, junk)
        check(got == b"" or re.match(rb"HTTP/1\.[01] [45]\d\d", got), "malformed %r: %r" % (junk[:30], got[:100]))
    obj, _ = get_json(port, "/health")
    check(obj is not None and p.poll() is None, "the server does not answer after hostile input")

    obj, _ = get_json(port, "/stats")
    if obj:
        t = obj["tables"][0]
        check(len(obj["tables"]) == 3 and obj["tables"][1]["variant"] == "international" and obj["tables"][1]["pieces"] == 3 and
              obj["tables"][1]["rule_limit"] == 50, "/stats of International: %s" % obj["tables"][1:2])
        check(obj["tables"][2]["variant"] == "russian" and obj["tables"][2]["pieces"] == 4 and
              obj["tables"][2]["rule_limit"] == 30 and obj["tables"][2]["cache_lookups"] > 0,
              "/stats of Russian: %s" % obj["tables"][2:])
        check(obj["requests"] > 50 and obj["positions"] > 10 and obj["statuses"]["4xx"] > 10 and
              t["variant"] == "brazilian" and t["pieces"] == 4 and t["rule_limit"] == 30 and
              0 <= t["cache_hit_rate"] <= 1 and t["cache_lookups"] > 0, "/stats: %s" % obj)

    # tables replaced under the server: a new manifest.json is picked up; requests meanwhile
    # get 200 or 503, never a dropped connection
    statuses, stop = [], threading.Event()

    def hammer():
        while not stop.is_set():
            try:
                statuses.append(request(port, "GET", url("W:WK25,K29:BK4"))[0])
            except OSError as e:
                statuses.append(str(e))
    th = threading.Thread(target=hammer)
    th.start()
    man = os.path.join(TABLES, "manifest.json")
    os.utime(man, (time.time() + 5, time.time() + 5))
    deadline = time.time() + 10
    while time.time() < deadline and "opened again" not in open(log).read():
        time.sleep(0.1)
    time.sleep(0.3)
    stop.set()
    th.join()
    check("opened again" in open(log).read(), "a new manifest.json was not picked up")
    check(statuses and all(s in (200, 503) for s in statuses), "while the tables were replaced: %s" % set(map(str, statuses)))
    obj, _ = get_json(port, "/stats")
    check(obj and obj["reloads"] == 1, "/stats reloads: %s" % (obj and obj["reloads"]))

    # SIGTERM: a clean stop
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = "killed"
    check(rc == 0 and "stopped after" in open(log).read(), "SIGTERM: exit %s, %s" % (rc, open(log).read()[-200:]))

    # a damaged table: an error for the positions that need it, the others answered; a missing
    # one: 503, not cacheable, for its positions, and /health says the server is degraded
    damaged = os.path.join(TMP, "damaged")
    shutil.copytree(TABLES, damaged)
    victim = os.path.join(damaged, "brazilian-0m2k-0m1k.dtw")
    os.truncate(victim, os.path.getsize(victim) // 2)
    os.remove(os.path.join(damaged, "brazilian-1m1k-0m1k.dtw"))
    os.remove(os.path.join(damaged, "russian-1m1k-0m1k.dtw"))
    p, port, log = start(damaged, "damaged")
    obj, _ = get_json(port, url("W:WK1,K2:BK32"), 500)
    check(obj is not None and "damaged" in obj["error"], "a damaged table: %s" % obj)
    get_json(port, url("W:WK25:BK4"))
    get_json(port, url("W:WK1,K2:BK32", tail="/mainline"), 500)
    for tail in ("", "/mainline"):
        obj, h = get_json(port, url("W:W22,K29:BK4", tail=tail), 503)
        check(obj and obj.get("fen") == "W:W22,K29:BK4" and "brazilian-1m1k-0m1k.dtw" in obj["error"] and
              h.get("cache-control") == "no-store" and "etag" not in h, "a missing table%s: %s %s" % (tail, obj, h))
    obj, h = get_json(port, url("W:W22,K29:BK4", variant="russian"), 503)
    check(obj and "russian-1m1k-0m1k.dtw" in obj["error"] and h.get("cache-control") == "no-store",
          "a missing Russian table: %s %s" % (obj, h))
    obj, _ = get_json(port, "/brazilian/batch", method="POST", body="W:W22,K29:BK4\nW:WK25:BK4")
    check(obj and "error" in obj[0] and obj[1]["category"] == "win", "a batch with a missing table: %s" % obj)
    os.remove(os.path.join(damaged, "brazilian-2m0k-0m1k.dtw"))  # under the running server
    obj, h = get_json(port, url("W:W21,22:BK4"), 503)
    check(obj and "brazilian-2m0k-0m1k.dtw" in obj["error"], "a table deleted under the server: %s" % obj)
    obj, _ = get_json(port, "/health")
    check(obj and obj["status"] == "degraded" and obj["missing"] == ["brazilian-1m1k-0m1k.dtw", "brazilian-2m0k-0m1k.dtw",
                                                                     "russian-1m1k-0m1k.dtw"]
          and obj["missing_count"] == 3, "/health with tables missing: %s" % obj)
    obj, _ = get_json(port, url("W:W14,15,29,30:B20,24"))  # outside the tables: still 200
    check(obj and obj["category"] == "unknown", "outside the tables with a table missing: %s" % obj)
    # a table that cannot be read (a directory in its place: it opens, every read fails): 503,
    # not cacheable, and read again once it is back
    unreadable = os.path.join(damaged, "brazilian-1m0k-0m2k.dtw")
    os.rename(unreadable, unreadable + ".away")
    os.mkdir(unreadable)
    obj, h = get_json(port, url("W:W21:BK4,K32"), 503)
    check(obj and "cannot read" in obj["error"] and "brazilian-1m0k-0m2k.dtw" in obj["error"] and
          h.get("cache-control") == "no-store", "an unreadable table: %s %s" % (obj, h))
    os.rmdir(unreadable)
    os.rename(unreadable + ".away", unreadable)
    obj, _ = get_json(port, url("W:W21:BK4,K32"))
    check(obj and obj["category"] in ("win", "draw", "loss"), "an unreadable table read again: %s" % obj)
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=15) == 0, "SIGTERM after a damaged table")

    # a short draw rule: cursed wins and their dtz; many idle or trickling connections
    p, port, log = start(SHORT, "short")
    cursed(port)
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=15) == 0, "SIGTERM (short rule)")
    hostile()
    changed_under_server(positions)

    # bad usage: one line, exit status 2, nothing started
    for args in (["--threads", "0"], ["--per-client", "-1"], ["--connections", "0"], ["--deadline", "0"],
                 ["--deadline", "x"], ["--listen", "nowhere"], ["--listen", "127.0.0.1:70000"], ["--tables", TMP + "/none"],
                 ["extra"], ["--bogus"]):
        r = subprocess.run([DAMKA, "serve", "--tables", TABLES] + args, capture_output=True, text=True, timeout=10)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("damka: "),
              "damka serve %s: exit %d, %r" % (" ".join(args), r.returncode, r.stderr))

    if fails:
        sys.exit("serve_http.py: %d failure(s)" % len(fails))
    print("   serve_http.py: every check passed")


main()
