"""The C API of libdamka (query/damka.h) as ctypes declarations, and finding the library.

Nothing here is kept between calls: load() returns a fresh CDLL object each time (the dynamic
loader maps the library once per process whatever the number of loads), so that no module-level
state can be shared, or go stale, between tablebases.
"""

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from .errors import LibraryError

# damka_status (damka.h)
OK = 0
NOT_IN_TABLES = 1
DAMAGED = 2
BAD_POSITION = 3
BAD_ARGUMENT = 4
NO_MEMORY = 5
NO_DIRECTORY = 6

# damka_wdl and damka_category, as the words `damka query --json` prints.
RESULTS: Dict[int, str] = {-1: "loss", 0: "draw", 1: "win"}
CATEGORIES: Dict[int, str] = {-2: "loss", -1: "blessed-loss", 0: "draw", 1: "cursed-win", 2: "win"}

MAX_MOVES = 768  # DAMKA_MAX_MOVES
NOTATION_MAX = 96  # DAMKA_NOTATION_MAX
FEN_MAX = 256  # "256 are always enough on 10x10" (damka_position_to_fen)
SONAME = "libdamka.so.0"  # the Makefile's SONAME


class Position(ctypes.Structure):
    _fields_ = [
        ("white", ctypes.c_uint64),
        ("black", ctypes.c_uint64),
        ("kings", ctypes.c_uint64),
        ("black_to_move", ctypes.c_int),
    ]


class Value(ctypes.Structure):
    _fields_ = [("wdl", ctypes.c_int), ("dtw", ctypes.c_int)]


class RuleValue(ctypes.Structure):
    _fields_ = [
        ("category", ctypes.c_int),
        ("dtc", ctypes.c_int),
        ("limit", ctypes.c_int),
        ("counter", ctypes.c_int),
    ]


class MoveValue(ctypes.Structure):
    _fields_ = [
        ("from_", ctypes.c_int),
        ("to", ctypes.c_int),
        ("captures", ctypes.c_uint64),
        ("promotes", ctypes.c_int),
        ("notation", ctypes.c_char * NOTATION_MAX),
        ("value", Value),
    ]


class RuleMove(ctypes.Structure):
    _fields_ = [("move", MoveValue), ("rule", RuleValue)]


_P = ctypes.POINTER
_TB = ctypes.c_void_p
_STATUS = ctypes.c_int

# name: (restype, argtypes)
_PROTOTYPES: Dict[str, Tuple[Any, List[Any]]] = {
    "damka_version": (ctypes.c_char_p, []),
    "damka_status_text": (ctypes.c_char_p, [_STATUS]),
    "damka_last_error": (ctypes.c_char_p, []),
    "damka_open": (_TB, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, _P(_STATUS)]),
    "damka_close": (None, [_TB]),
    "damka_variant": (ctypes.c_char_p, [_TB]),
    "damka_squares": (ctypes.c_int, [_TB]),
    "damka_max_pieces": (ctypes.c_int, [_TB]),
    "damka_draw_rule": (ctypes.c_int, [_TB]),
    "damka_position_from_fen": (_STATUS, [_TB, ctypes.c_char_p, _P(Position)]),
    "damka_position_from_fen_n": (_STATUS, [_TB, ctypes.c_char_p, ctypes.c_size_t, _P(Position)]),
    "damka_position_to_fen": (_STATUS, [_TB, _P(Position), ctypes.c_char_p, ctypes.c_size_t]),
    "damka_probe_dtw": (_STATUS, [_TB, _P(Position), _P(Value)]),
    "damka_probe_rule": (_STATUS, [_TB, _P(Position), ctypes.c_int, _P(RuleValue)]),
    "damka_rank_moves": (_STATUS, [_TB, _P(Position), _P(MoveValue), ctypes.c_int, _P(ctypes.c_int)]),
    "damka_rank_moves_rule": (
        _STATUS,
        [_TB, _P(Position), ctypes.c_int, _P(RuleMove), ctypes.c_int, _P(ctypes.c_int)],
    ),
}


def _installed_beside() -> Optional[str]:
    """libdamka in the library directory of the prefix this package is installed under: for a
    package in PREFIX/lib/python3.11/site-packages/damka (pip), PREFIX/lib/python3/dist-packages/damka
    (Debian) or PREFIX/lib/x86_64-linux-gnu/..., the nearest ancestor named lib or lib64 holding
    libdamka.so.0 or libdamka.so (where `make install PREFIX=...` puts them)."""
    for parent in Path(__file__).resolve().parents:
        if parent.name in ("lib", "lib64"):
            for name in (SONAME, "libdamka.so"):
                if (parent / name).exists():
                    return str(parent / name)
    return None


def library_path() -> Optional[str]:
    """Where the library is looked for: $DAMKA_LIB if set; else the repository's
    build/libdamka.so when this package is the one in a damka checkout (python/damka/); else
    libdamka beside an installed package (the lib directory of its prefix); else what
    ctypes.util.find_library("damka") finds on the system (ldconfig's cache, gcc's and
    LD_LIBRARY_PATH's directories). None if none."""
    env = os.environ.get("DAMKA_LIB")
    if env:
        return env  # an explicit choice is not second-guessed: a wrong path is an error
    repo = Path(__file__).resolve().parents[2]
    if (repo / "query" / "damka.h").exists() and (repo / "build" / "libdamka.so").exists():
        return str(repo / "build" / "libdamka.so")
    return _installed_beside() or ctypes.util.find_library("damka")


def load(path: Optional[str] = None) -> ctypes.CDLL:
    """A CDLL for libdamka with every function's prototype set; raises LibraryError."""
    path = path or library_path()
    if not path:
        raise LibraryError(
            "libdamka not found: build it with `make lib` in the damka repository "
            "(build/libdamka.so), install it (`make install`), or set DAMKA_LIB to its path"
        )
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise LibraryError(f"cannot load libdamka from {path}: {e}") from None
    for name, (restype, argtypes) in _PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise LibraryError(f"{path} has no {name}: an older libdamka? rebuild with `make lib`") from None
        fn.restype = restype
        fn.argtypes = argtypes
    from . import __version__  # the package, loaded by the time a library is

    check_version(lib.damka_version().decode(errors="replace"), __version__, path)
    return lib


def check_version(found: str, wanted: str, path: str) -> None:
    """Raises LibraryError unless libdamka `found` ("MAJOR.MINOR", damka_version) serves a
    package of version `wanted`: the same major version, and a minor version at least the
    package's (a later one only adds)."""
    try:
        have = [int(x) for x in found.split(".")[:2]]
        need = [int(x) for x in wanted.split(".")[:2]]
    except ValueError:
        raise LibraryError(f"{path} says it is libdamka version {found!r}, not MAJOR.MINOR") from None
    if len(have) != 2 or have[0] != need[0] or have[1] < need[1]:
        raise LibraryError(f"{path} is libdamka {found}; this package ({wanted}) needs {need[0]}.{need[1]} "
                           f"or a later {need[0]}.x: rebuild it with `make lib`, or set DAMKA_LIB to a newer one")
