"""What the checks of `damka serve` share (tests/serve_http.py, scripts/lidraughts-check): a
server started on a free loopback port, and an answer cut down to what `damka query --json`
prints for the same position."""
import re
import subprocess
import time


def start_server(damka, tables, log_path, *options):
    """Starts `damka serve --tables tables` on a free loopback port with 2 threads, its stderr
    into log_path. Returns (process, port), or (None, the log's text) when it did not start."""
    log = open(log_path, "w")
    p = subprocess.Popen([damka, "serve", "--tables", tables, "--listen", "127.0.0.1:0", "--threads", "2"] + list(options),
                         stderr=log, stdout=subprocess.DEVNULL)
    deadline = time.time() + 30
    while time.time() < deadline:
        with open(log_path) as f:
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)/", f.read())
        if m:
            return p, int(m.group(1))
        if p.poll() is not None:
            break
        time.sleep(0.05)
    p.kill()
    with open(log_path) as f:
        return None, f.read().strip()


def restrict(obj, like):
    """obj with only the members `like` has, recursively: what damka query prints."""
    if isinstance(like, dict) and isinstance(obj, dict):
        return {k: restrict(obj.get(k), v) for k, v in like.items()}
    if isinstance(like, list) and isinstance(obj, list) and len(like) == len(obj):
        return [restrict(a, b) for a, b in zip(obj, like)]
    return obj
