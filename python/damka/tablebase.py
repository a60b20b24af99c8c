"""Tablebase: a directory of damka tables opened through libdamka, and the values it answers."""

import ctypes
import operator
import os
from dataclasses import dataclass
from typing import Any, List, NoReturn, Optional, Tuple, Type, Union

from . import _capi
from .errors import BY_STATUS, BadArgument, Error, NotInTables, TablebaseClosed

#: What a directory may be given as: a str, bytes or a path-like object (pathlib.Path).
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
#: A FEN: a str, or its bytes (ASCII).
Fen = Union[str, bytes]


@dataclass(frozen=True)
class Probe:
    """A position's value for its side to move (Tablebase.probe).

    fen:      the position as a canonical PDN FEN with numeric squares (as `damka query --json` prints it)
    result:   "win", "draw" or "loss", the game-theoretic value (no draw rule)
    dtw:      plies to the end of the game with best play (odd for a win, even for a loss,
              0: the side to move has no legal move); None for a draw
    category: the value under the draw rule at the counter asked for: "win", "cursed-win",
              "draw", "blessed-loss" or "loss" (the words of `damka query --json` and
              docs/draw-rule.md); None when the tables have no draw rule (draw_rule == 0)
    dtc:      for a "win" or "loss" category, plies to the next conversion (a capture or man
              move by either side, or the end of the game) with best play under the rule, at
              most draw_rule - counter (0: no legal move); None otherwise
    """

    fen: str
    result: str
    dtw: Optional[int]
    category: Optional[str]
    dtc: Optional[int]


@dataclass(frozen=True)
class Move:
    """A legal move with the value it leads to for the side making it (Tablebase.rank_moves).
    Immutable and hashable, as Probe: a move may be a key of a dict or a member of a set.

    notation:    the variant's notation: "c3-d4", "c3xe5" on 8x8, "32-28", "28x19" on 10x10;
                 captured squares in parentheses when two captures would read the same
    squares:     (from_square, to_square); the C API gives no intermediate landing squares of
                 a capture, only the captured pieces
    from_square, to_square: PDN square numbers (equal for a king capturing round a cycle)
    captures:    the captured pieces' squares, ascending (a tuple)
    promotes:    whether a man becomes a king
    result, dtw: the game-theoretic value after the move, counted from the position before it
                 (a win in n plies by this move: "win", n)
    category, dtc: the value under the draw rule with the counter before the move as given (the
                 position reached counts at 0 after a capture or man move, at counter + 1 after
                 a quiet king move); dtc counted from the position before the move (the
                 conversion itself: 1); both None without a draw rule
    """

    notation: str
    squares: Tuple[int, int]
    from_square: int
    to_square: int
    captures: Tuple[int, ...]
    promotes: bool
    result: str
    dtw: Optional[int]
    category: Optional[str]
    dtc: Optional[int]


def _squares(bits: int) -> Tuple[int, ...]:
    """The squares (1-based) of a bitboard, ascending."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length())
        bits ^= low
    return tuple(out)


def _value(v: _capi.Value) -> Tuple[str, Optional[int]]:
    return _capi.RESULTS[v.wdl], (None if v.wdl == 0 else int(v.dtw))


def _rule(r: _capi.RuleValue) -> Tuple[Optional[str], Optional[int]]:
    return _capi.CATEGORIES[r.category], (int(r.dtc) if r.dtc >= 0 else None)


class Tablebase:
    """The tables of one variant in one directory, opened with damka.open_tables().

    Thread safety, as libdamka's: probe() and rank_moves() may be called from any number of
    threads at once on the same Tablebase (the calls release the GIL, and the library's block
    cache is split into independently locked shards); close() must not run while another
    thread is still using it. Nothing is kept between calls but the handle and its cache.

    Attributes (fixed when opened): directory, variant ("brazilian", "international", "russian"),
    squares (32 or 50), max_pieces (the largest n such that every material of 2..n pieces has
    its WLD and DTW files; 0 for a directory without tables), draw_rule (the rule's limit in
    PLIES, 30 for Brazilian tables made by default, 0 when the directory has no .dtc tables).
    """

    directory: Union[str, bytes]
    variant: str
    squares: int
    max_pieces: int
    draw_rule: int

    def __init__(
        self,
        directory: PathLike,
        variant: Optional[str] = "brazilian",
        cache_mb: int = 64,
        *,
        library: Optional[str] = None,
    ) -> None:
        self._tb: Optional[int] = None
        if not isinstance(cache_mb, int) or isinstance(cache_mb, bool) or cache_mb < 0:
            raise BadArgument(f"cache_mb must be a whole number of MiB >= 0, got {cache_mb!r}")
        if variant is not None and not isinstance(variant, str):
            raise TypeError(f"a variant is a str, not {type(variant).__name__}")
        self._lib = _capi.load(library)
        self.directory = os.fspath(directory)
        status = ctypes.c_int(0)
        tb = self._lib.damka_open(
            os.fsencode(self.directory),
            None if variant is None else variant.encode(),
            cache_mb,
            ctypes.byref(status),
        )
        if not tb:
            self._raise(status.value)
        self._tb = tb
        self.variant = self._lib.damka_variant(tb).decode()
        self.squares = self._lib.damka_squares(tb)
        self.max_pieces = self._lib.damka_max_pieces(tb)
        self.draw_rule = self._lib.damka_draw_rule(tb)

    # --- life cycle ---

    def close(self) -> None:
        """Closes the tables and frees the cache; later probes raise TablebaseClosed. Closing
        twice is harmless. Must not run while another thread uses this Tablebase."""
        tb, self._tb = self._tb, None
        if tb:
            self._lib.damka_close(tb)

    @property
    def closed(self) -> bool:
        return self._tb is None

    def __enter__(self) -> "Tablebase":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # a Tablebase dropped without close(): nothing else can be using it any more
        if getattr(self, "_tb", None):
            self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"max_pieces={self.max_pieces} draw_rule={self.draw_rule}"
        return f"<damka.Tablebase {self.directory!r} {self.variant} {state}>"

    # --- probes ---

    def probe(self, fen: Fen, counter: int = 0) -> Probe:
        """The value of the position `fen` (a PDN FEN of the variant) for its side to move:
        a Probe with result and dtw, and the value under the draw rule (category, dtc) when
        `counter` quiet king plies (0..draw_rule, as `damka query --counter`) have been
        played since the last capture or man move. Raises BadPosition (the FEN does not parse,
        or not a legal position), NotInTables (a table is missing, or counter > 0 on tables
        without a draw rule), BadArgument (a counter below 0, or beyond the rule's limit), TablebaseClosed, DamagedTable, OutOfMemory."""
        tb = self._handle()
        counter = self._counter(counter)
        pos = self._position(tb, fen)
        v = _capi.Value()
        self._check(self._lib.damka_probe_dtw(tb, ctypes.byref(pos), ctypes.byref(v)), pos)
        result, dtw = _value(v)
        category: Optional[str] = None
        dtc: Optional[int] = None
        if self.draw_rule:
            r = _capi.RuleValue()
            self._check(self._lib.damka_probe_rule(tb, ctypes.byref(pos), counter, ctypes.byref(r)), pos)
            category, dtc = _rule(r)
        buf = ctypes.create_string_buffer(_capi.FEN_MAX)
        self._check(self._lib.damka_position_to_fen(tb, ctypes.byref(pos), buf, len(buf)), pos)
        return Probe(buf.value.decode(), result, dtw, category, dtc)

    def rank_moves(self, fen: Fen, counter: int = 0) -> List[Move]:
        """Every legal move of `fen` with its value, best first, as `damka query` lists them:
        with a draw rule, by category under the rule at `counter` (0..draw_rule; win, cursed
        win, draw, blessed loss, loss), then fastest win / slowest loss by DTW; without one, by
        DTW alone. The first move carries the position's own value. An empty list: the side to
        move has no legal move (a loss in 0). Raises as probe()."""
        tb = self._handle()
        counter = self._counter(counter)
        pos = self._position(tb, fen)
        # at the limit the rule has drawn the game: the moves without rule values, as the CLI
        rule = 0 <= counter < self.draw_rule
        count = ctypes.c_int(0)
        cap = 64  # most positions have fewer moves; asked again with the exact count otherwise
        moves: Any
        while True:
            if rule:
                moves = (_capi.RuleMove * cap)()
                st = self._lib.damka_rank_moves_rule(tb, ctypes.byref(pos), counter, moves, cap,
                                                     ctypes.byref(count))
            else:
                moves = (_capi.MoveValue * cap)()
                st = self._lib.damka_rank_moves(tb, ctypes.byref(pos), moves, cap, ctypes.byref(count))
            self._check(st, pos)
            if count.value <= cap:
                break
            cap = count.value
        out = []
        for m in moves[: count.value]:
            mv = m.move if rule else m
            result, dtw = _value(mv.value)
            category, dtc = _rule(m.rule) if rule else (None, None)
            out.append(
                Move(
                    notation=mv.notation.decode(),
                    squares=(mv.from_, mv.to),
                    from_square=mv.from_,
                    to_square=mv.to,
                    captures=_squares(mv.captures),
                    promotes=bool(mv.promotes),
                    result=result,
                    dtw=dtw,
                    category=category,
                    dtc=dtc,
                )
            )
        return out

    # --- helpers ---

    def _handle(self) -> int:
        tb = self._tb
        if not tb:
            raise TablebaseClosed(
                f"the Tablebase of {os.fsdecode(self.directory)!r} is closed (by close() or the end "
                "of its `with` block): open the tables again with damka.open_tables()"
            )
        return tb

    def _counter(self, counter: int) -> int:
        """The counter as an int, refused as `damka query --counter` refuses it: below 0, on
        tables without the draw rule (NotInTables), or beyond the rule's limit
        (damka_draw_rule), where the rule has drawn the game (BadArgument)."""
        counter = operator.index(counter)  # TypeError for a float or a string, as list indexing
        if counter < 0:
            raise BadArgument(f"counter {counter}: a counter counts quiet king plies, 0 or more")
        limit = self.draw_rule
        if counter and not limit:
            raise NotInTables(
                f"counter {counter}: a counter needs draw-rule (.dtc) tables, and "
                f"{os.fsdecode(self.directory)} has none (made with --draw-rule 0, or no tables)",
                _capi.NOT_IN_TABLES,
                "not in the tables",
                max_pieces=self.max_pieces,
            )
        if counter > limit > 0:
            raise BadArgument(
                f"counter {counter}: the {limit // 2}-move rule draws the game at {limit} plies, "
                f"so the counter goes from 0 to {limit}"
            )
        return counter

    def _position(self, tb: int, fen: Fen) -> _capi.Position:
        if isinstance(fen, str):
            fen = fen.encode()
        elif not isinstance(fen, bytes):
            raise TypeError(f"a FEN is a str, not {type(fen).__name__}")
        pos = _capi.Position()
        # with its length: the library's parser refuses a NUL as every interface does
        self._check(self._lib.damka_position_from_fen_n(tb, fen, len(fen), ctypes.byref(pos)))
        return pos

    def _check(self, status: int, pos: Optional[_capi.Position] = None) -> None:
        if status != _capi.OK:
            self._raise(status, pos)

    def _raise(self, status: int, pos: Optional[_capi.Position] = None) -> NoReturn:
        # damka_last_error is per thread, and ctypes calls run on the calling thread: it still
        # describes the failure just returned
        message = self._lib.damka_last_error().decode(errors="replace") or ""
        text = self._lib.damka_status_text(status).decode()
        cls: Type[Error] = BY_STATUS.get(status, Error)
        if cls is NotInTables and self._tb:
            raise self._not_in_tables(message or text, status, text, pos)
        raise cls(message or text, status, text)

    def _not_in_tables(self, message: str, status: int, text: str, pos: Optional[_capi.Position]) -> NotInTables:
        """NotInTables saying how many pieces the tables hold (and the position has): as
        `damka query` says it when the position has more pieces than the tables."""
        where = os.fsdecode(self.directory)
        most = self.max_pieces
        pieces = bin(pos.white | pos.black).count("1") if pos is not None else None
        if pieces is not None and most and pieces > most:
            message = f"the position has {pieces} pieces, the tables in {where} hold at most {most}"
        elif most:
            message = f"{message} (the tables in {where} hold every material of up to {most} pieces)"
        else:
            message = f"{message} ({where} holds no {self.variant} tables)"
        return NotInTables(message, status, text, pieces=pieces, max_pieces=most)


def open_tables(
    directory: PathLike,
    variant: Optional[str] = "brazilian",
    cache_mb: int = 64,
    *,
    library: Optional[str] = None,
) -> Tablebase:
    """Opens the tables of `variant` ("brazilian", "international" or "russian"; "26", "20" and
    "25", their PDN GameType numbers, too) made by `damka gen` in `directory`, with a cache of decompressed
    blocks of about cache_mb MiB (0: the library's default, 64). Returns a Tablebase, also a
    context manager that closes it on exit. Files are opened and checked on first use, so a
    directory without tables opens (max_pieces 0) and its probes raise NotInTables.

    Raises NoDirectory (no such directory), BadArgument (unknown variant), OutOfMemory, and
    LibraryError when libdamka cannot be found or loaded. The library is `library` if given,
    else $DAMKA_LIB, else the repository's build/libdamka.so, else libdamka in the lib
    directory of the prefix this package is installed under, else find_library("damka")."""
    return Tablebase(directory, variant, cache_mb, library=library)


#: The former name of open_tables, kept: damka.open(...) still works. It is not in damka's
#: __all__, so that `from damka import *` leaves the built-in open() alone.
open = open_tables  # noqa: A001
