"""damka: endgame tablebases for Brazilian (8x8) and International (10x10) draughts, from Python.

A thin ctypes binding of libdamka (query/damka.h in the damka repository; build it with
`make lib`). Standard library only.

    import damka
    with damka.open("tables") as tb:
        print(tb.probe("W:WK25,K29:BK4"))             # result, dtw, category, dtc
        for m in tb.rank_moves("W:WK25,K29:BK4", counter=10):
            print(m.notation, m.result, m.dtw, m.category, m.dtc)

Thread safety is the library's: a Tablebase may be probed from many threads at once; only
close() must not overlap other calls on it. The package keeps no global mutable state.

libdamka has no version function (only the DAMKA_VERSION_MAJOR/MINOR macros of its header),
so this package offers no damka.version().
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
)
from .tablebase import Move, Probe, Tablebase, open

__all__ = [
    "open",
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
]
