"""A model of lidraughts' tablebase client (ui/analyse/src/explorer/ in lidraughts' source:
explorerXhr.ts, explorerCtrl.ts, explorerUtil.ts, explorerView.ts, and decomposeUci of
ui/draughts), with the change docs/api.md proposes to it, checked against `damka serve`'s answers
(tests/serve_http.py runs it): what the client would show and play agrees with damka's own
members, every `uci` is a legal path of its move on the board, and each move's lichess members
are those the server gives the position after the move."""
import urllib.parse


# --- the board, for checking paths and making the position after a move ---------------------

def square_rc(n, s):
    """Row (0: Black's side) and column of PDN square s on an n x n board."""
    half = n // 2
    r, k = divmod(s - 1, half)
    return r, 2 * k + (1 if r % 2 == 0 else 0)


def rc_square(n, r, c):
    return r * (n // 2) + c // 2 + 1


def parse_fen(fen):
    """A numeric FEN (damka's canonical form) as (side 'W' or 'B', {square: (colour, king)})."""
    fields = fen.split(":")
    board = {}
    for f in fields[1:3]:
        colour = f[0]
        for item in filter(None, f[1:].split(",")):
            king = item.startswith("K")
            a, _, b = item.lstrip("K").partition("-")
            for s in range(int(a), int(b or a) + 1):
                board[s] = (colour, king)
    return fields[0], board


# lidraughts' variants whose men are crowned on reaching the last row during a capture, and go on
# capturing as kings (docs/rules.md)
CROWNS_IN_CAPTURE = ("russian",)


def last_row(n, colour, s):
    """Whether PDN square s is the row where a man of colour ('W' or 'B') is crowned."""
    return square_rc(n, s)[0] == (0 if colour == "W" else n - 1)


def fen_of(side, board):
    def pieces(colour):
        return ",".join(("K" if k else "") + str(s) for s, (c, k) in sorted(board.items()) if c == colour)
    return "%s:W%s:B%s" % (side, pieces("W"), pieces("B"))


def path_problem(n, side, board, squares, captures, crowns=False):
    """Why `squares` (the uci's, as numbers) is no legal path for a move taking `captures`
    (None when it is one): each hop on a diagonal over empty squares but for exactly one piece
    still to take (captured pieces stay on the board until the end, none is taken twice); a
    man's hop is 1 (a quiet move, forwards) or 2 squares long; where the variant `crowns` in a
    capture, a man that lands on its last row hops on as a king."""
    mover = board.get(squares[0])
    if not mover or mover[0] != side:
        return "no piece of the side to move on %d" % squares[0]
    king = mover[1]
    taken = set()
    for a, b in zip(squares, squares[1:]):
        (ra, ca), (rb, cb) = square_rc(n, a), square_rc(n, b)
        if abs(ra - rb) != abs(ca - cb) or ra == rb:
            return "%d-%d is not a diagonal" % (a, b)
        steps = abs(ra - rb)
        dr, dc = (rb - ra) // steps, (cb - ca) // steps
        between = [rc_square(n, ra + i * dr, ca + i * dc) for i in range(1, steps)]
        occupied = [s for s in between if s in board and s != squares[0]]
        if b in board and b != squares[0]:
            return "%d is occupied" % b
        if captures:
            if len(occupied) != 1 or occupied[0] not in captures or occupied[0] in taken:
                return "%d-%d does not take one piece of the capture" % (a, b)
            taken.add(occupied[0])
            if not king and steps != 2:
                return "a man's jump %d-%d" % (a, b)
            king = king or (crowns and last_row(n, side, b))
        else:
            forward = -1 if side == "W" else 1
            if occupied or len(squares) != 2 or (not king and (steps != 1 or dr != forward)):
                return "a quiet move %d-%d" % (a, b)
    if captures and taken != set(captures):
        return "the path takes %s, the move %s" % (sorted(taken), sorted(captures))
    return None


def apply_move(n, side, board, squares, captures, crowns=False):
    """The position after the move along `squares` (a man ending on the far row becomes a king,
    and where the variant `crowns` in a capture, one that passes it)."""
    after = dict(board)
    colour, king = after.pop(squares[0])
    for s in captures:
        del after[s]
    passed = squares[1:] if crowns else squares[-1:]
    after[squares[-1]] = (colour, king or any(last_row(n, colour, s) for s in passed))
    return ("B" if side == "W" else "W"), after


# --- lidraughts' client, as its TypeScript reads the answer ------------------------------------

def piece_count(fen):
    """ui/analyse/src/util.ts pieceCount: fen.split(',').length + 1."""
    return len(fen.split(",")) + 1


def decompose_uci(uci):
    """ui/draughts/src/main.ts decomposeUci: the uci cut into two-character squares."""
    return [uci[i:i + 2] for i in range(0, len(uci), 2)] if uci and len(uci) > 1 else []


def winner_of_today(fen, move):
    """explorerUtil.ts winnerOf as lidraughts has it: the side to move from a chess FEN's second
    field. With a draughts FEN, fen.split(' ')[1] is undefined and stm[0] throws."""
    parts = fen.split(" ")
    if len(parts) < 2:
        raise TypeError("Cannot read properties of undefined (reading '0')")
    stm = parts[1]
    if (stm[0] == "w" and move["wdl"] < 0) or (stm[0] == "b" and move["wdl"] > 0):
        return "white"
    if (stm[0] == "b" and move["wdl"] < 0) or (stm[0] == "w" and move["wdl"] > 0):
        return "black"
    return None


def color_of(fen):
    """colorOf, changed: a draughts FEN starts with the side to move, W or B."""
    return "white" if fen[0] == "W" else "black"


def opposite(c):
    return "black" if c == "white" else "white"


def winner_of(fen, move):
    """winnerOf, changed: the move's wdl is for the side to move after it, as in lichess."""
    stm = color_of(fen)
    return stm if move["wdl"] < 0 else opposite(stm) if move["wdl"] > 0 else None


def tablebase_relevant(variant, fen, pieces):
    """tablebaseRelevant (and tablebaseGuaranteed), changed: the variants the server holds, up to
    the pieces its tables hold (today `pieceCount(fen) <= 0`: never)."""
    return variant in ("standard", "fromPosition", "brazilian", "russian") and piece_count(fen) <= pieces


def request_path(variant, fen, counter=None):
    """explorerXhr.ts tablebase: GET endpoint + '/' + variant with data {fen} (jQuery encodes it),
    and, in the changed client, the draw rule's counter (its count of quiet king plies) as
    `counter`: lidraughts' :H field counts from the move that made a drawn material, which is
    not that counter, and the server ignores it."""
    v = "standard" if variant == "fromPosition" else variant
    data = {"fen": fen}
    if counter is not None:
        data["counter"] = counter
    return "/" + v + "?" + urllib.parse.urlencode(data)


def fetch_tablebase_hit(fen, res):
    """explorerCtrl.ts fetchTablebaseHit: the best move and the winner, or an exception for a
    position it takes for unknown (the first move's dtz null)."""
    move = res["moves"][0] if res["moves"] else None
    if move and move["dtz"] is None:
        raise ValueError("unknown tablebase position")
    winner = opposite(color_of(fen)) if res["checkmate"] else None if res["stalemate"] else winner_of(fen, move)
    return {"fen": fen, "best": move and move["uci"], "winner": winner}


GROUPS = [("winning", -2), ("unknown", None), ("winPreventedBy50MoveRule", -1), ("drawn", 0),
          ("lossSavedBy50MoveRule", 1), ("losing", 2)]


def group_of(move):
    """explorerView.ts: the table a move is listed in, by its wdl."""
    return next(name for name, wdl in GROUPS if move["wdl"] == wdl)


def show_dtz(fen, move):
    """explorerView.ts showDtz: (class, text) of the move's result cell, or None."""
    if move["checkmate"]:
        return ("result." + str(winner_of(fen, move)), "")
    if move["dtz"] is None:
        return None
    if move["dtz"] == 0:
        return ("result.draws", "draw")
    if move["zeroing"]:
        return ("result." + str(winner_of(fen, move)), "capture" if "x" in move["san"] else "pawnMove")
    return ("result." + str(winner_of(fen, move)), "DTZ %d" % abs(move["dtz"]))


# --- the checks ---------------------------------------------------------------------------------

MOVER_GROUP = {"win": "winning", "cursed-win": "winPreventedBy50MoveRule", "draw": "drawn",
               "blessed-loss": "lossSavedBy50MoveRule", "loss": "losing"}


def check_position(get, check, variant, fen, n, pieces, counter=None):
    """Asks the server for fen as lidraughts' client does (its FEN with :H and :F fields, and the
    counter as `counter` when one is given) and checks what the changed client makes of the answer. get(path) is the
    answer's JSON; check(ok, what) records a failure. Returns the answer."""
    sent = fen + (":H%d:F40" % counter if counter is not None else "")
    check(tablebase_relevant(variant, sent, pieces), "%s: not tablebase-relevant for the client" % sent)
    res = get(request_path(variant, sent, counter))
    if res is None:
        return None
    check(res["rule"] is None or res["rule"]["counter"] == min(counter or 0, res["rule"]["limit"]),
          "%s: the counter is not the one asked for" % sent)
    side, board = parse_fen(res["fen"])
    mover = color_of(sent)
    try:
        hit = fetch_tablebase_hit(sent, res)
    except ValueError:
        hit = None
    if res["moves"] and res["rule"] is not None:
        check(hit is not None, "%s: the client takes the position for unknown (dtz of the first move null)" % sent)
    if hit:
        want = mover if res["result"] == "win" else opposite(mover) if res["result"] == "loss" else None
        check(hit["winner"] == want, "%s: the client's winner %s, damka's %s" % (sent, hit["winner"], want))
        check(hit["best"] == (res["moves"][0]["uci"] if res["moves"] else None), "%s: best move" % sent)
    for m in res["moves"]:
        what = "%s %s" % (sent, m["notation"])
        squares = [int(k) for k in decompose_uci(m["uci"])]
        check(len(m["uci"]) == 2 * len(squares) and squares[0] == m["from"] and squares[-1] == m["to"] and
              len(squares) == (len(m["captures"]) + 1 if m["captures"] else 2),
              what + ": uci %s: its first and last squares or length" % m["uci"])
        problem = path_problem(n, side, board, squares, m["captures"], variant in CROWNS_IN_CAPTURE)
        check(problem is None, "%s: uci %s is no legal path: %s" % (what, m["uci"], problem))
        if m["rule"] is not None:
            check(group_of(m) == MOVER_GROUP[m["rule"]["category"]],
                  "%s: listed under %s, damka's category for the mover %s" % (what, group_of(m), m["rule"]["category"]))
            check(m["dtz"] is not None, what + ": dtz null")
        shown = show_dtz(sent, m)
        if shown and shown[0] not in ("result.draws",):
            wins = m["result"] == "win"
            check(shown[0] == "result." + (mover if wins else opposite(mover)),
                  "%s: shown as %s, damka's result for the mover %s" % (what, shown[0], m["result"]))
    return res


def check_children(get, check, variant, res, n):
    """Each move's lichess members are those the server gives the position after it, met with the
    counter the move leaves (0 after a capture or man move, one more after a king's quiet move),
    as lichess gives them."""
    rule = res["rule"]
    if rule is None or rule["counter"] >= rule["limit"]:
        return
    side, board = parse_fen(res["fen"])
    for m in res["moves"]:
        squares = [int(k) for k in decompose_uci(m["uci"])]
        after_side, after_board = apply_move(n, side, board, squares, m["captures"], variant in CROWNS_IN_CAPTURE)
        if len({c for c, _ in after_board.values()}) < 2:
            continue  # a side without pieces: the move's checkmate flag says it all
        after = fen_of(after_side, after_board)
        counter = 0 if m["zeroing"] else rule["counter"] + 1
        child = get("/%s?fen=%s&counter=%d" % (variant, after, counter))
        if child is None:
            continue
        for key in ("category", "wdl", "dtz", "precise_dtz", "dtm", "checkmate"):
            check(m[key] == child[key], "%s %s: %s %r, the position after it (%s, counter %d) %r" %
                  (res["fen"], m["notation"], key, m[key], after, counter, child[key]))
