"""What the Python tests share: the damka executable and the tables it generates once a session.

Tables: $DAMKA_TABLES if set, else the Brazilian tables up to 4 pieces generated once into a
temporary directory (`damka gen --pieces 4`, about ten seconds), and a 3-piece set made with
`--draw-rule 0`. The executable is $DAMKA or the repository's build/damka.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON_DIR = Path(__file__).resolve().parents[1]
REPO = PYTHON_DIR.parent
sys.path.insert(0, str(PYTHON_DIR))

DAMKA = os.environ.get("DAMKA") or str(REPO / "build" / "damka")


def run_damka(*args, stdin=None):
    return subprocess.run([DAMKA, *args], input=stdin, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def damka_bin():
    if not os.access(DAMKA, os.X_OK):
        pytest.fail(f"{DAMKA} not found: build it first (make build/damka lib, or make python-test)")
    return DAMKA


def generate(out, *args):
    r = run_damka("gen", *args, "--out", str(out), "--quiet")
    assert r.returncode == 0, f"damka gen {' '.join(args)}: {r.stderr}"
    return str(out)


@pytest.fixture(scope="session")
def tables(damka_bin, tmp_path_factory):
    return os.environ.get("DAMKA_TABLES") or generate(tmp_path_factory.mktemp("br4"), "--pieces", "4")


@pytest.fixture(scope="session")
def tables_norule(damka_bin, tmp_path_factory):
    return generate(tmp_path_factory.mktemp("br3-norule"), "--pieces", "3", "--draw-rule", "0")
