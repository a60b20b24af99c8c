"""Exceptions: one class per damka_status of the C API, all under damka.Error.

Each carries the library's own one-line explanation (damka_last_error) as its message, the
status number (`status`, None for errors raised on the Python side) and the status's short text
(`status_text`, from damka_status_text). Where a built-in exception means the same thing, the
class derives from it too, so `except ValueError` catches a bad FEN.
"""

from typing import Dict, Optional, Type


class Error(Exception):
    """Base class of every error this package raises."""

    def __init__(self, message: str, status: Optional[int] = None, status_text: Optional[str] = None) -> None:
        super().__init__(message)
        self.status = status
        self.status_text = status_text


class LibraryError(Error):
    """libdamka could not be found or loaded, or lacks a function this package needs."""


class NotInTables(Error):
    """DAMKA_NOT_IN_TABLES: the position's material (or one its captures reach) has no table in
    the directory, more pieces than any table, or no draw-rule (.dtc) tables where they are
    needed. The message says how many pieces the directory's tables hold; so do the attributes
    `max_pieces` (the Tablebase's, 0: no tables) and `pieces` (the position's; None when the
    error is not about a position)."""

    def __init__(
        self,
        message: str,
        status: Optional[int] = None,
        status_text: Optional[str] = None,
        *,
        pieces: Optional[int] = None,
        max_pieces: Optional[int] = None,
    ) -> None:
        super().__init__(message, status, status_text)
        self.pieces = pieces
        self.max_pieces = max_pieces


class DamagedTable(Error):
    """DAMKA_DAMAGED: a table file is damaged or truncated (the message names it)."""


class BadPosition(Error, ValueError):
    """DAMKA_BAD_POSITION: bad input, refused as every damka interface refuses it (the table of
    verdicts in docs/cli.md): a FEN that does not parse (a NUL or control character, an empty
    square field, over 255 bytes, ...) or a position no game reaches (a man on its own promotion
    row, too many pieces on a side, the side not to move without pieces)."""


class BadArgument(Error, ValueError):
    """DAMKA_BAD_ARGUMENT: an unknown variant, a counter outside the rule's range (a counter at
    the rule's limit or beyond: the game is already drawn), ..."""


class OutOfMemory(Error, MemoryError):
    """DAMKA_NO_MEMORY."""


class NoDirectory(Error, FileNotFoundError):
    """DAMKA_NO_DIRECTORY: the table directory does not exist or cannot be read."""


class TablebaseClosed(Error, ValueError):
    """A probe on a Tablebase after close() (or after its `with` block): as Python's files, a
    ValueError too. Open the directory again to go on."""


# damka_status -> class (the numbers of query/damka.h)
BY_STATUS: Dict[int, Type[Error]] = {
    1: NotInTables,
    2: DamagedTable,
    3: BadPosition,
    4: BadArgument,
    5: OutOfMemory,
    6: NoDirectory,
}
