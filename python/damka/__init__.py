"""damka: endgame tablebases for Brazilian (8x8), International (10x10) and Russian (8x8) draughts, from Python.

A thin ctypes binding of libdamka (query/damka.h in the damka repository; build it with
`make lib`). Standard library only.

    import damka
    with damka.open_tables("tables") as tb:
        print(tb.probe("W:WK25,K29:BK4"))             # result, dtw, category, dtc
        for m in tb.rank_moves("W:WK25,K29:BK4", counter=10):
            print(m.notation, m.result, m.dtw, m.category, m.dtc)

`damka.open` is the same function under its former name; it is left out of __all__, so that
`from damka import *` does not hide the built-in open().

Thread safety is the library's: a Tablebase may be probed from many threads at once; only
close() must not overlap other calls on it. The package keeps no global mutable state.

__version__ is this package's version, which follows libdamka's (DAMKA_VERSION_MAJOR/MINOR of
its header); a library that says (damka_version) it is of another major version, or of an
earlier minor one, is refused when loaded (LibraryError).
"""

from .errors import (
    BadArgument,
    BadPosition,
    DamagedTable,
    Error,
    LibraryError,
    NoDirectory,
    NotInTables,
    OutOfMemory,
    TablebaseClosed,
)
from .tablebase import Move, Probe, Tablebase, open, open_tables  # noqa: A004 (open: the former name)

__version__ = "0.4.0"

__all__ = [
    "open_tables",
    "Tablebase",
    "Probe",
    "Move",
    "Error",
    "LibraryError",
    "NotInTables",
    "DamagedTable",
    "BadPosition",
    "BadArgument",
    "OutOfMemory",
    "NoDirectory",
    "TablebaseClosed",
]
