"""scripts/plot-stats on the tables the binding's tests use (Brazilian up to 4 pieces): every
figure is written, is a PNG of a sensible size, and has something drawn in it (not a blank or
near-blank canvas); the win/draw/loss figure shows its three colours. Without a draw rule there
is no draw-rule figure; without manifest.json the figures come from `damka stats --json`.

Needs Debian's python3-matplotlib (`scripts/install-deps --plots`, which `make python-test` runs).
"""

import importlib.util
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "plot-stats"
FIGURES = ["dtw-distribution.png", "wdl-by-material.png", "longest-win.png", "draw-rule.png"]


def plot(tables, out):
    r = subprocess.run([sys.executable, str(SCRIPT), str(tables), str(out)], capture_output=True, text=True,
                       timeout=300, env=os.environ)
    assert r.returncode == 0, f"plot-stats {tables}: {r.stderr}"
    return r


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])  # IHDR: width, height


def pixels(path):
    import matplotlib.image  # only here: the module imports without matplotlib

    img = matplotlib.image.imread(str(path))
    return img[:, :, :3].reshape(-1, 3)


def check_figure(path):
    """A PNG at least 1000 pixels wide and 600 high, more than 2% of it not white, with more
    than 20 distinct colours."""
    assert path.exists(), f"{path.name} not written"
    w, h = png_size(path)
    assert w >= 1000 and h >= 600, f"{path.name}: {w}x{h}"
    px = pixels(path)
    inked = (px < 0.95).any(axis=1).mean()
    assert inked > 0.02, f"{path.name}: only {inked:.1%} of the pixels are not white"
    colours = {tuple(c) for c in (px[::7] * 255).round().astype(int).tolist()}
    assert len(colours) > 20, f"{path.name}: {len(colours)} colours"
    return px


@pytest.fixture(scope="module")
def matplotlib_present():
    if importlib.util.find_spec("matplotlib") is None:
        pytest.fail(f"{sys.executable} has no matplotlib: scripts/install-deps --plots (python3-matplotlib)")


@pytest.fixture(scope="module")
def figures(tables, tmp_path_factory, matplotlib_present):
    """The figures of the 4-piece tables, and what the script printed."""
    out = tmp_path_factory.mktemp("figures")
    return out, plot(tables, out)


def test_figures(figures):
    out, r = figures
    for name in FIGURES:
        check_figure(out / name)
        assert str(out / name) in r.stdout
    # the win/draw/loss bars: green, grey and red, each on a fair number of pixels
    px = (pixels(out / "wdl-by-material.png") * 255).round().astype(int)
    for name, rgb in (("win", (0x1B, 0x78, 0x37)), ("draw", (0xBD, 0xBD, 0xBD)), ("loss", (0xB2, 0x18, 0x2B))):
        share = (abs(px - rgb).max(axis=1) <= 2).mean()
        assert share > 0.01, f"wdl-by-material.png: {name} colour on {share:.2%} of the pixels"


def test_without_draw_rule(tables_norule, tmp_path, matplotlib_present):
    out = tmp_path / "figures"
    r = plot(tables_norule, out)
    for name in FIGURES[:3]:
        check_figure(out / name)
    assert not (out / "draw-rule.png").exists()
    assert "no draw-rule.png" in r.stderr


def test_without_manifest(tables, figures, tmp_path):
    """A run still under way has .stats files and no manifest.json: the figures come from
    `damka stats --json`, the same as from the manifest."""
    partial = tmp_path / "partial"
    partial.mkdir()
    for f in Path(tables).glob("*.stats"):
        shutil.copy(f, partial / f.name)
    a, b = figures[0], tmp_path / "b"
    plot(partial, b)
    for name in FIGURES:
        check_figure(b / name)
        assert png_size(a / name) == png_size(b / name)


def test_bad_arguments(tmp_path):
    r = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "plot-stats TABLE_DIR OUT_DIR" in r.stderr
    r = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path), str(tmp_path / "out")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode != 0 and r.stderr.strip().startswith("plot-stats:"), r.stderr
