#!/usr/bin/env python3
"""HTTP tests of `damka serve` (run by tests/serve.sh): every endpoint and error, the answers
against `damka query --json` for the same FENs, the lichess fields lidraughts' client reads,
CORS and caching, hostile input (huge headers, path traversal, bad UTF-8, malformed requests,
slow clients), a damaged table, tables replaced under the server, SIGTERM.

Usage: serve_http.py DAMKA TABLES TMP (TABLES: Brazilian up to 4 pieces, International up to 3;
TMP: scratch space)."""
import http.client
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

DAMKA, TABLES, TMP = sys.argv[1:4]
CAT = {"loss": -2, "blessed-loss": -1, "draw": 0, "cursed-win": 1, "win": 2}
NAME = {v: k for k, v in CAT.items()}
fails = []


def check(ok, what):
    if not ok:
        fails.append(what)
        print("FAIL: " + what)
    return ok


def start(tables, name):
    """Starts a server on a free loopback port; returns (process, port, log path)."""
    log_path = os.path.join(TMP, name + ".log")
    log = open(log_path, "w")
    p = subprocess.Popen([DAMKA, "serve", "--tables", tables, "--listen", "127.0.0.1:0", "--threads", "2"],
                         stderr=log, stdout=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", open(log_path).read())
        if m:
            return p, int(m.group(1)), log_path
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    sys.exit("FAIL: damka serve did not start: " + open(log_path).read())


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


def restrict(obj, like):
    """obj with only the members `like` has, recursively: what damka query prints."""
    if isinstance(like, dict) and isinstance(obj, dict):
        return {k: restrict(obj.get(k), v) for k, v in like.items()}
    if isinstance(like, list) and isinstance(obj, list) and len(like) == len(obj):
        return [restrict(a, b) for a, b in zip(obj, like)]
    return obj


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
        check(m["uci"] == "%02d%02d" % (m["from"], m["to"]), mw + ": uci")
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
                                              ("W:WK46,K47:BK5", None), ("B:W6:B45", None)]]
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

    # the same position in other forms: algebraic squares, lidraughts' :H and :F fields
    a, _ = get_json(port, url("W:WK25,K29:BK4"))
    b, _ = get_json(port, url("W:WKb2,Ka1:BKh8"))
    c, _ = get_json(port, url("W:WK25,K29:BK4:H0:F1"))
    check(a == b == c, "the same position in other forms gets another answer")
    a, _ = get_json(port, url("W:W30:BK1", variant="international"))
    b, _ = get_json(port, url("W:W30:BK1:H2:F40", variant="standard"))
    check(a == b, "/standard (lidraughts' name) answers otherwise than /international")

    # caching: the same ETag twice, 304 with If-None-Match
    _, h1, body1 = request(port, "GET", url("W:WK25,K29:BK4"))
    _, h2, _ = request(port, "GET", url("W:WK25,K29:BK4"))
    check(h1.get("etag") and h1.get("etag") == h2.get("etag"), "the ETag changes between two requests")
    status, _, body = request(port, "GET", url("W:WK25,K29:BK4"), headers={"If-None-Match": h1.get("etag", "")})
    check(status == 304 and body == b"", "If-None-Match: status %d" % status)

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

    # errors: statuses and JSON
    for path, want in [("/brazilian", 400), (url("W:WK25,K29:BK"), 400), (url("W:WK25:BK4", 31), 400),
                       ("/brazilian?fen=W:WK25:BK4&counter=x", 400), ("/brazilian?fen=W:WK25:BK4&counter=-1", 400),
                       (url("W:W" + ",".join(["1"] * 200) + ":B2"), 400), (url("W:WK25,K29:BK4", variant="frisian"), 404),
                       (url("W:WK25:BK4", variant="Brazilian"), 404), (url("W:WK46:BK5", variant="20"), 404),
                       (url("W:WK46,K47,K48:BK5", variant="international"), 200),
                       ("/brazilian/nothing", 404), ("/nothing", 404), ("/brazilian/", 404), ("/health/x", 404),
                       ("/brazilian?fen=%ff%fe%80", 400), ("/brazilian?fen=W%00:WK1:BK2", 400)]:
        get_json(port, path, want)
    get_json(port, "/brazilian", 405, method="POST", body="x")
    get_json(port, "/brazilian/batch", 405)
    get_json(port, "/health", 405, method="DELETE")

    # CORS preflight, /health, /stats, the page
    status, h, _ = request(port, "OPTIONS", "/brazilian")
    check(status == 204 and "GET" in h.get("access-control-allow-methods", "") and
          h.get("access-control-allow-origin") == "*", "OPTIONS: %d %s" % (status, h))
    obj, _ = get_json(port, "/health")
    check(obj == {"status": "ok", "variants": ["brazilian", "international"]}, "/health: %s" % obj)
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
    # slow clients: 40 connections sending a header by halves do not hold up a request
    slow = []
    for _ in range(40):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /health HTTP/1.1\r\nHo")
        slow.append(s)
    t0 = time.time()
    status, _, _ = request(port, "GET", url("W:WK25,K29:BK4"))
    check(status == 200 and time.time() - t0 < 3, "with slow clients: status %d after %.1f s" % (status, time.time() - t0))
    for s in slow:
        s.close()
    obj, _ = get_json(port, "/health")
    check(obj is not None and p.poll() is None, "the server does not answer after hostile input")

    obj, _ = get_json(port, "/stats")
    if obj:
        t = obj["tables"][0]
        check(len(obj["tables"]) == 2 and obj["tables"][1]["variant"] == "international" and obj["tables"][1]["pieces"] == 3 and
              obj["tables"][1]["rule_limit"] == 50, "/stats of International: %s" % obj["tables"][1:])
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

    # a damaged table: an error for the positions that need it, the others answered
    damaged = os.path.join(TMP, "damaged")
    shutil.copytree(TABLES, damaged)
    victim = os.path.join(damaged, "brazilian-0m2k-0m1k.dtw")
    os.truncate(victim, os.path.getsize(victim) // 2)
    p, port, log = start(damaged, "damaged")
    obj, _ = get_json(port, url("W:WK1,K2:BK32"), 500)
    check(obj is not None and "damaged" in obj["error"], "a damaged table: %s" % obj)
    get_json(port, url("W:WK25:BK4"))
    get_json(port, url("W:WK1,K2:BK32", tail="/mainline"), 500)
    get_json(port, "/health")
    p.send_signal(signal.SIGTERM)
    check(p.wait(timeout=15) == 0, "SIGTERM after a damaged table")

    changed_under_server(positions)

    # bad usage: one line, exit status 2, nothing started
    for args in (["--threads", "0"], ["--listen", "nowhere"], ["--listen", "127.0.0.1:70000"], ["--tables", TMP + "/none"],
                 ["extra"], ["--bogus"]):
        r = subprocess.run([DAMKA, "serve", "--tables", TABLES] + args, capture_output=True, text=True, timeout=10)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("damka: "),
              "damka serve %s: exit %d, %r" % (" ".join(args), r.returncode, r.stderr))

    if fails:
        sys.exit("serve_http.py: %d failure(s)" % len(fails))
    print("   serve_http.py: every check passed")


main()
