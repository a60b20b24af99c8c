"""The package as a package: it installs with pip (from Debian's python3-pip and
python3-setuptools, no network, no build isolation), the installed copy finds libdamka through
$DAMKA_LIB or in the lib directory of its prefix (as `make install` lays it out) and probes,
and its type hints check with mypy --strict (Debian's python3-mypy). Each test is skipped when
the Debian package it needs is missing (`scripts/install-deps --python` installs them; CI does).
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PYTHON_DIR

import damka  # noqa: E402

PROBE = """
import damka, sys
with damka.open_tables(sys.argv[1]) as tb:
    p = tb.probe("W:WK25,K29:BK4")
    print(damka.__file__, damka._capi.library_path(), damka.__version__, p.result, p.dtw, sep="\\n")
"""


def needs(module):
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed for {sys.executable} (scripts/install-deps --python)")


def run_python(*args, env, cwd):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def clean_env(**extra):
    """The environment without what would lead Python or damka to the repository's copy."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DAMKA_LIB", "PYTHONHOME")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """`pip install --target PREFIX/lib/python3/dist-packages` of a copy of python/ (pip builds
    in the source tree, which must not be the repository's): the site-packages directory."""
    needs("pip")
    needs("setuptools")
    tmp = tmp_path_factory.mktemp("pkg")
    src = tmp / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info",
                                                                    "tests", "examples"))
    site = tmp / "prefix" / "lib" / "python3" / "dist-packages"
    r = run_python("-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "--no-cache-dir",
                   "--disable-pip-version-check", "--target", str(site), str(src),
                   env=clean_env(PIP_NO_INPUT="1"), cwd=tmp)
    assert r.returncode == 0, r.stdout + r.stderr
    return site


def test_pip_installs_the_package(installed):
    assert (installed / "damka" / "py.typed").exists()
    assert sorted(p.name for p in (installed / "damka").glob("*.py")) == sorted(
        p.name for p in (PYTHON_DIR / "damka").glob("*.py"))
    [info] = installed.glob("damka-*.dist-info")
    assert info.name == f"damka-{damka.__version__}.dist-info"
    metadata = (info / "METADATA").read_text()
    assert "Requires-Python: >=3.8" in metadata and "Typing :: Typed" in metadata


def test_installed_package_probes(installed, tables):
    """With $DAMKA_LIB (what `make python-test` sets), from a directory outside the repository."""
    lib = os.environ.get("DAMKA_LIB") or damka._capi.library_path()
    assert lib, "no libdamka to test with"
    r = run_python("-c", PROBE, tables, env=clean_env(PYTHONPATH=str(installed), DAMKA_LIB=lib), cwd=installed.parent)
    assert r.returncode == 0, r.stderr
    where, found, version, result, dtw = r.stdout.splitlines()
    assert Path(where).is_relative_to(installed) and found == lib
    assert (version, result, dtw) == (damka.__version__, "win", "3")


def test_installed_package_finds_the_library_of_its_prefix(installed, tables):
    """Without $DAMKA_LIB: libdamka.so.0 in PREFIX/lib, where `make install PREFIX=...` puts it,
    beside PREFIX/lib/python3/dist-packages/damka."""
    lib = os.environ.get("DAMKA_LIB") or damka._capi.library_path()
    prefix_lib = installed.parents[1]
    shutil.copyfile(os.path.realpath(lib), prefix_lib / "libdamka.so.0")
    try:
        r = run_python("-c", PROBE, tables, env=clean_env(PYTHONPATH=str(installed)), cwd=installed.parent)
    finally:
        (prefix_lib / "libdamka.so.0").unlink()
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1] == str(prefix_lib / "libdamka.so.0")
    assert r.stdout.splitlines()[3:] == ["win", "3"]


USER_CODE_OK = """
import damka
from typing import List, Optional

def best(directory: str, fen: str) -> Optional[str]:
    with damka.open_tables(directory) as tb:
        moves: List[damka.Move] = tb.rank_moves(fen, counter=3)
        p: damka.Probe = tb.probe(fen)
        squares: tuple[int, int] = moves[0].squares
        dtw: Optional[int] = p.dtw
        return moves[0].notation if moves and dtw is not None and squares else None
"""

USER_CODE_BAD = """
import damka
tb = damka.open_tables("tables")
n: int = tb.probe("W:WK25,K29:BK4").result
tb.rank_moves("W:WK25,K29:BK4", counter="3")
"""


def test_types(tmp_path):
    """mypy --strict on the package (its settings in pyproject.toml), and on code that uses it:
    the hints are seen through py.typed, and a wrong use is caught."""
    needs("mypy")
    cache = ["--cache-dir", str(tmp_path / "mypy-cache")]
    r = run_python("-m", "mypy", *cache, env=clean_env(), cwd=PYTHON_DIR)
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "ok.py").write_text(USER_CODE_OK)
    (tmp_path / "bad.py").write_text(USER_CODE_BAD)
    env = clean_env(MYPYPATH=str(PYTHON_DIR))
    r = run_python("-m", "mypy", "--strict", *cache, "ok.py", env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    r = run_python("-m", "mypy", "--strict", *cache, "bad.py", env=env, cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "bad.py:4: error: Incompatible types in assignment" in r.stdout, r.stdout
    assert "bad.py:5: error: Argument \"counter\"" in r.stdout, r.stdout
