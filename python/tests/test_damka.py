"""The Python binding against `damka query --json`: every answer of damka.Tablebase (value,
DTW, category and DTC under the draw rule, every move with its values, in order, and the errors)
must equal what the command prints for the same tables, FEN and counter.

Tables: $DAMKA_TABLES if set, else the Brazilian tables up to 4 pieces generated once into a
temporary directory (`damka gen --pieces 4`, about ten seconds), and a 3-piece set made with
`--draw-rule 0`. The executable is $DAMKA or the repository's build/damka; the library
$DAMKA_LIB or build/libdamka.so (see damka/_capi.py). Run with `make python-test`, or
`pytest-3 python/tests` after `make build/damka lib`.
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import PYTHON_DIR, REPO, run_damka  # (conftest.py also puts python/ on the path)

import damka  # noqa: E402  (after the path is set)

SEED = 20240601
RANDOM_POSITIONS = 10000
WILD_POSITIONS = 300
COUNTERS = [0, 1, 7, 15, 20, 25, 29]  # 29: the last counter of the 15-move rule with moves left


# --- tables (conftest.py: damka_bin, tables, tables_norule) ---


@pytest.fixture(scope="session")
def tb(tables):
    with damka.open_tables(tables) as t:
        yield t


def cli_batch(tables, fens, counter=None):
    """`damka query --json --batch` over fens: one parsed object per FEN, in order."""
    args = ["query", "--tables", tables, "--json", "--batch", "-"]
    if counter is not None:
        args += ["--counter", str(counter)]
    r = run_damka(*args, stdin="".join(f + "\n" for f in fens))
    assert r.returncode in (0, 1), f"damka query --batch: status {r.returncode}: {r.stderr}"
    lines = r.stdout.splitlines()
    assert len(lines) == len(fens), f"{len(lines)} answers for {len(fens)} FENs: {r.stderr}"
    return [json.loads(line) for line in lines]


# --- positions ---

# White men promote on 1..4, Black men on 29..32 (a man never stands on its promotion row).
WHITE_PROMOTION, BLACK_PROMOTION = range(1, 5), range(29, 33)


def algebraic(sq):
    """Brazilian square 1..32 as a1..h8 (1 is b8, 4 is h8, 29 is a1)."""
    row = 8 - (sq - 1) // 4
    files = "aceg" if row % 2 else "bdfh"
    return f"{files[(sq - 1) % 4]}{row}"


def fen_of(rng, white, black, black_to_move):
    """A FEN of the pieces ((square, king) lists) in one of the forms the parser takes: numeric
    or algebraic squares, either section first."""
    alg = rng.random() < 0.2
    def section(colour, pieces):
        return colour + ",".join(("K" if k else "") + (algebraic(s) if alg else str(s)) for s, k in pieces)
    w, b = section("W", white), section("B", black)
    sections = [w, b] if rng.random() < 0.8 else [b, w]
    return ("B:" if black_to_move else "W:") + ":".join(sections)


def random_fens(n, seed):
    """Legal positions of 2..4 pieces, each side with a piece."""
    rng = random.Random(seed)
    fens = []
    for _ in range(n):
        k = rng.choice([2, 3, 3, 4, 4, 4, 4])
        squares = rng.sample(range(1, 33), k)
        nw = rng.randint(1, k - 1)
        white = [(s, s in WHITE_PROMOTION or rng.random() < 0.4) for s in squares[:nw]]
        black = [(s, s in BLACK_PROMOTION or rng.random() < 0.4) for s in squares[nw:]]
        fens.append(fen_of(rng, white, black, rng.random() < 0.5))
    return fens


def wild_fens(n, seed):
    """Anything: 0..6 pieces, men anywhere, a side without pieces; many have no answer."""
    rng = random.Random(seed)
    fens = []
    for _ in range(n):
        squares = rng.sample(range(1, 33), rng.randint(0, 6))
        cut = rng.randint(0, len(squares))
        white = [(s, rng.random() < 0.5) for s in squares[:cut]]
        black = [(s, rng.random() < 0.5) for s in squares[cut:]]
        fens.append(fen_of(rng, white, black, rng.random() < 0.5))
    return fens


FEN_RE = re.compile(r"[WB]:[WB][-A-Za-z0-9,]*:[WB][-A-Za-z0-9,]*")


def repository_fens():
    """Every FEN the repository's tests and documents write (Brazilian or not: those of 10x10
    squares must fail the same way in both)."""
    found = set()
    for pattern in ("tests/*.sh", "tests/*.c", "docs/*.md", "README.md", "Makefile", "query/damka.h"):
        for path in REPO.glob(pattern):
            found.update(FEN_RE.findall(path.read_text(errors="replace")))
    return sorted(found)


def manifest_fens(tables):
    """The longest win and longest DTC of every table (long distances, where counters bite)."""
    path = Path(tables) / "manifest.json"
    if not path.exists():
        return []
    fens = set()
    for t in (t for v in json.loads(path.read_text())["variants"] for t in v["tables"]):
        if t.get("longest_win"):
            fens.add(t["longest_win"]["fen"])
        if t.get("rule") and t["rule"].get("longest_dtc"):
            fens.add(t["rule"]["longest_dtc"]["fen"])
    return sorted(fens)


@pytest.fixture(scope="session")
def sample(tables):
    repo = repository_fens()
    assert len(repo) > 50  # the extraction still finds the repository's FENs
    fens = repo + manifest_fens(tables) + random_fens(RANDOM_POSITIONS, SEED) + wild_fens(WILD_POSITIONS, SEED + 1)
    return list(dict.fromkeys(fens))  # distinct, order kept


# --- comparing ---

CLI_ERRORS = [  # the CLI's error texts (cli/cmd_query.c) -> the exception the binding raises
    ("bad FEN for ", damka.BadPosition),
    ("not a position the tables hold", damka.BadPosition),
    ("not in the tables", damka.NotInTables),
    ("damaged table", damka.DamagedTable),
    ("out of memory", damka.OutOfMemory),
]


def python_answer(tb, fen, counter):
    """(probe, moves) or the exception raised."""
    try:
        return tb.probe(fen, counter), tb.rank_moves(fen, counter)
    except damka.Error as e:
        return e


def rule_of(obj):
    r = obj.get("rule")
    return (None, None) if r is None else (r["category"], r["dtc"])


def differences(tb, fen, counter, cli):
    """What differs between the binding's answer and the CLI's object, as a list of texts."""
    got = python_answer(tb, fen, counter or 0)
    if "error" in cli:
        want = next((cls for prefix, cls in CLI_ERRORS if cli["error"].startswith(prefix)), None)
        if not isinstance(got, damka.Error):
            return [f"{fen}: CLI error {cli['error']!r}, binding answered {got}"]
        if want is None or not isinstance(got, want):
            return [f"{fen}: CLI error {cli['error']!r}, binding raised {got!r}"]
        if cli["error"].startswith("bad FEN for ") and cli["error"] != f"bad FEN for {tb.variant}: {got}":
            return [f"{fen}: CLI error {cli['error']!r}, binding's message {str(got)!r}"]
        return []
    if isinstance(got, damka.Error):
        return [f"{fen}: CLI answered, binding raised {got!r}"]
    probe, moves = got
    out = []
    if (probe.fen, probe.result, probe.dtw) != (cli["fen"], cli["result"], cli["dtw"]):
        out.append(f"{fen}: probe {probe} != CLI {cli['fen']} {cli['result']} {cli['dtw']}")
    if (probe.category, probe.dtc) != rule_of(cli):
        out.append(f"{fen} counter {counter}: rule {probe.category} {probe.dtc} != CLI {cli['rule']}")
    if cli["rule"] is not None and (cli["rule"]["limit"], cli["rule"]["counter"]) != (tb.draw_rule, counter):
        out.append(f"{fen}: CLI rule limit/counter {cli['rule']} (binding: {tb.draw_rule}, {counter})")
    want = [
        (m["notation"], (m["from"], m["to"]), m["from"], m["to"], tuple(m["captures"]), m["result"], m["dtw"])
        + rule_of(m)
        for m in cli["moves"]
    ]
    have = [
        (m.notation, m.squares, m.from_square, m.to_square, m.captures, m.result, m.dtw, m.category, m.dtc)
        for m in moves
    ]
    if have != want:
        out.append(f"{fen} counter {counter}: moves\n  binding {have}\n  CLI     {want}")
    return out


def compare_all(tb, tables, fens, counter):
    cli = cli_batch(tables, fens, counter)
    bad = []
    for fen, obj in zip(fens, cli):
        bad += differences(tb, fen, counter, obj)
    assert not bad, f"{len(bad)} difference(s), the first:\n" + "\n".join(bad[:10])
    return cli


# --- against the CLI ---


@pytest.mark.parametrize("counter", COUNTERS)
def test_every_answer_matches_cli(tb, tables, sample, counter):
    if counter and not tb.draw_rule:
        pytest.skip("the tables have no draw rule")
    if counter >= max(tb.draw_rule, 1):
        pytest.skip(f"counter {counter} is past the tables' rule ({tb.draw_rule} plies)")
    cli = compare_all(tb, tables, sample, counter)
    answered = [o for o in cli if "error" not in o]
    # the sample is what it is meant to be: mostly answered, every kind of move and value met
    assert len(answered) >= RANDOM_POSITIONS
    assert sum("error" in o for o in cli) >= 50
    moves = [m for o in answered for m in o["moves"]]
    assert len(moves) > 4 * RANDOM_POSITIONS
    assert any(len(m["captures"]) >= 2 for m in moves), "no multiple capture in the sample"
    assert any(not o["moves"] for o in answered), "no position without a legal move in the sample"
    assert {o["result"] for o in answered} == {"win", "draw", "loss"}
    if tb.draw_rule and counter >= 20:
        cats = {m["rule"]["category"] for m in moves}
        assert {"cursed-win", "blessed-loss"} <= cats, f"counter {counter}: only {cats}"


def test_promotions_match_moves_command(tb):
    """`damka query --json` leaves out `promotes`; `damka moves --json` has it (one process per
    FEN, so a smaller sample)."""
    fens = random_fens(300, SEED + 4)
    promotions = 0
    for fen in fens:
        r = run_damka("moves", "--json", fen)
        assert r.returncode == 0, r.stderr
        want = {(m["from"], m["to"], tuple(m["captures"])): m["promotes"] for m in json.loads(r.stdout)}
        have = {(m.from_square, m.to_square, tuple(m.captures)): m.promotes for m in tb.rank_moves(fen)}
        assert have == want, fen
        promotions += sum(want.values())
    assert promotions > 20


def test_no_rule_tables_match_cli(tables_norule, sample):
    with damka.open_tables(tables_norule) as t:
        assert (t.draw_rule, t.max_pieces) == (0, 3)
        cli = compare_all(t, tables_norule, sample, None)
        assert sum("error" not in o for o in cli) > 500
        # a counter needs the rule's tables, in both
        r = run_damka("query", "--tables", tables_norule, "--counter", "3", "W:WK29:B22")
        assert r.returncode != 0
        assert "draw-rule" in r.stderr
        with pytest.raises(damka.NotInTables, match="draw-rule"):
            t.probe("W:WK29:B22", counter=3)
        with pytest.raises(damka.NotInTables, match="draw-rule"):
            t.rank_moves("W:WK29:B22", counter=3)
        with pytest.raises(damka.NotInTables, match="draw-rule"):
            t.probe("W:WK29:B22", counter=2**40)


def test_examples_of_the_documents(tb):
    if tb.draw_rule != 30:
        pytest.skip("the documents' figures are for the 15-move rule")
    p = tb.probe("W:WK25,K29:BK4")
    assert (p.fen, p.result, p.dtw, p.category, p.dtc) == ("W:WK25,K29:BK4", "win", 3, "win", 2)
    assert tb.probe("W:WK25,K29:BK4", counter=29).category == "cursed-win"
    first = tb.rank_moves("W:WK25,K29:BK4")[0]
    assert (first.notation, first.squares, first.captures, first.result, first.dtw) == ("b2-g7", (25, 8), (), "win", 3)


# --- the binding's own guarantees ---


def expected_at(stored, counter, limit):
    """The value at `counter` of a position whose value at counter 0 is `stored` (category,
    dtc), as damka.h and docs/draw-rule.md define it."""
    cat, dtc = stored
    if cat in ("win", "loss") and dtc + counter <= limit:
        return stored
    return {"win": ("cursed-win", None), "loss": ("blessed-loss", None)}.get(cat, stored)


def test_probe_at_every_counter(tb, sample):
    """Counters the CLI test skips, against the definition: decided exactly while DTC fits in
    the plies left."""
    if not tb.draw_rule:
        pytest.skip("the tables have no draw rule")
    fens = random_fens(300, SEED + 2)
    for fen in fens:
        p0 = tb.probe(fen)
        for c in range(tb.draw_rule):
            p = tb.probe(fen, c)
            assert (p.fen, p.result, p.dtw) == (p0.fen, p0.result, p0.dtw)
            assert (p.category, p.dtc) == expected_at((p0.category, p0.dtc), c, tb.draw_rule), (fen, c)
    with pytest.raises(TypeError):
        tb.probe(fens[0], 1.5)


def test_counter_refused_as_cli(tb, tables):
    """A counter from 0 to the rule's limit is answered (at the limit the rule has drawn the
    game: moves without rule values) and one beyond it refused, by `damka query --counter`,
    probe() and rank_moves() alike; so is one below 0."""
    if not tb.draw_rule:
        pytest.skip("the tables have no draw rule")
    fen, limit = "W:WK25,K29:BK4", tb.draw_rule
    for c in (limit - 1, limit, limit + 1, 2**40):
        r = run_damka("query", "--tables", tables, "--json", "--counter", str(c), fen)
        if c <= limit:
            assert r.returncode == 0, r.stderr
            cli = json.loads(r.stdout)
            assert tb.probe(fen, c).category == cli["rule"]["category"]
            moves = tb.rank_moves(fen, c)
            assert moves and all((m.category is None) == (c == limit) for m in moves)
            continue
        assert r.returncode == 2 and r.stdout == ""
        for call in (tb.probe, tb.rank_moves):
            with pytest.raises(damka.BadArgument) as e:
                call(fen, c)
            assert isinstance(e.value, ValueError)
            if c <= 30000:  # the CLI's largest counter (DK_RULE_MAX_LIMIT); beyond it says so
                drawn = f"the {limit // 2}-move rule draws the game at {limit} plies"
                assert drawn in r.stderr and drawn in str(e.value), (r.stderr, str(e.value))
    r = run_damka("query", "--tables", tables, "--counter", "-1", fen)
    assert r.returncode != 0
    with pytest.raises(damka.BadArgument, match="0 or more"):
        tb.probe(fen, -1)
    with pytest.raises(damka.BadArgument, match="0 or more"):
        tb.rank_moves(fen, -1)


def test_threads_agree(tb):
    fens = random_fens(400, SEED + 3)
    want = {f: (tb.probe(f, 5 if tb.draw_rule else 0), tb.rank_moves(f, 5 if tb.draw_rule else 0)) for f in fens}
    failures = []

    def work(k):
        for f in fens[k::2] + fens:
            c = 5 if tb.draw_rule else 0
            if (tb.probe(f, c), tb.rank_moves(f, c)) != want[f]:
                failures.append(f)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures


def test_attributes(tb, tables):
    assert tb.variant == "brazilian" and tb.squares == 32
    if not os.environ.get("DAMKA_TABLES"):
        assert (tb.max_pieces, tb.draw_rule) == (4, 30)
    assert tb.directory == tables and not tb.closed and "brazilian" in repr(tb)
    with damka.open_tables(tables, variant="26", cache_mb=1) as t:  # PDN GameType, a tiny cache
        assert t.variant == "brazilian"
        assert t.probe("W:WK25,K29:BK4") == tb.probe("W:WK25,K29:BK4")


def test_longest_wins_example(tables):
    """python/examples/longest_wins.py: ten lines, the longest first, each checked by a probe."""
    if not (Path(tables) / "manifest.json").exists():
        pytest.skip(f"{tables} has no manifest.json")
    manifest = json.loads((Path(tables) / "manifest.json").read_text())
    longest = max(t["longest_win"]["plies"] for t in manifest["variants"][0]["tables"] if t["longest_win"])
    r = subprocess.run([sys.executable, str(PYTHON_DIR / "examples" / "longest_wins.py"), tables],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 11 and "MISMATCH" not in r.stdout, r.stdout
    assert int(lines[1].split()[0]) == longest
    plies = [int(line.split()[0]) for line in lines[1:]]
    assert plies == sorted(plies, reverse=True)


# --- errors ---

MALFORMED = ["", "X", "W:", "W:W1", "W:WK25,K29", "W:W33:B1", "W:Wz9:B1", "W:W30:B30", "W:W1x:B2",
             "W:W5:B1junk", "W:W1:B5", "W:W30:B1,K1", "W:W1-99:B",
             # the verdicts of docs/cli.md: an empty square field, a bad lidraughts field, the side
             # not to move without pieces, an empty board
             "W:W5,:B1", "W:WK25,K29:BK4:Hx", "W:WK5:B", "W:W:B"]


def test_malformed_fen(tb, tables):
    cli = cli_batch(tables, [f for f in MALFORMED if f], 0)
    for fen, obj in zip([f for f in MALFORMED if f], cli):
        assert "error" in obj, fen
        with pytest.raises(damka.BadPosition) as e:
            tb.probe(fen)
        assert isinstance(e.value, ValueError) and e.value.status == 3 and str(e.value)
        assert obj["error"].startswith("bad FEN") or obj["error"].startswith("not a position"), obj
        if obj["error"].startswith("bad FEN"):
            assert obj["error"] == f"bad FEN for brazilian: {e.value}"
        with pytest.raises(damka.BadPosition):
            tb.rank_moves(fen)
    with pytest.raises(damka.BadPosition):
        tb.probe("")
    with pytest.raises(damka.BadPosition, match="NUL"):
        tb.probe("W:WK25,K29:BK4\0junk")
    with pytest.raises(TypeError):
        tb.probe(None)
    assert tb.probe(b"W:WK25,K29:BK4") == tb.probe("W:WK25,K29:BK4")


def test_verdicts(tb):
    """lidraughts' :H and :F fields are ignored; a side to move without pieces has lost."""
    assert tb.probe("W:WK25,K29:BK4:H7:F30") == tb.probe("W:WK25,K29:BK4")
    over = tb.probe("B:WK5:B")
    assert (over.result, over.dtw) == ("loss", 0) and tb.rank_moves("B:WK5:B") == []
    with pytest.raises(damka.BadPosition, match="FEN holds a character no FEN has"):
        tb.probe("W:W\t5:B1")


def test_too_many_pieces(tb, tables):
    """NotInTables says how many pieces the tables hold, as `damka query` does."""
    most = tb.max_pieces
    white = ",".join(str(s) for s in range(21, 21 + most))
    for fen, pieces in (("W:W21,22,23,24,25:B1,2,3,4", 9), (f"W:W{white}:BK4", most + 1)):
        for call in (tb.probe, tb.rank_moves):
            with pytest.raises(damka.NotInTables) as e:
                call(fen)
            assert e.value.status_text == "not in the tables"
            assert (e.value.pieces, e.value.max_pieces) == (pieces, most)
            said = f"the position has {pieces} pieces, the tables in {tables} hold at most {most}"
            assert str(e.value) == said
        r = run_damka("query", "--tables", tables, fen)
        assert r.returncode != 0 and said in r.stderr


def test_directory_without_tables(tmp_path):
    with damka.open_tables(tmp_path) as t:
        assert (t.max_pieces, t.draw_rule) == (0, 0)
        with pytest.raises(damka.NotInTables, match="no table") as e:
            t.probe("W:WK25,K29:BK4")
        assert f"{tmp_path} holds no brazilian tables" in str(e.value) and e.value.max_pieces == 0
        with pytest.raises(damka.NotInTables):
            t.rank_moves("W:WK25,K29:BK4")
    with pytest.raises(damka.NoDirectory) as e:
        damka.open_tables(tmp_path / "missing")
    assert isinstance(e.value, FileNotFoundError) and "missing" in str(e.value)
    with pytest.raises(damka.BadArgument, match="chess"):
        damka.open_tables(tmp_path, variant="chess")
    with pytest.raises(damka.BadArgument):
        damka.open_tables(tmp_path, cache_mb=-1)


def test_damaged_table(tables, tmp_path, damka_bin):
    copy = tmp_path / "damaged"
    shutil.copytree(tables, copy)
    f = copy / "brazilian-0m1k-0m1k.dtw"
    f.write_bytes(f.read_bytes()[:20])  # truncated: the header and block index do not check
    fen = "W:WK8:BK4"
    with damka.open_tables(copy) as t:
        with pytest.raises(damka.DamagedTable) as e:
            t.probe(fen)
        assert "0m1k-0m1k" in str(e.value)
    [obj] = cli_batch(str(copy), [fen], 0)
    assert obj["error"].startswith("damaged table")


def test_context_manager_closes(tables):
    with damka.open_tables(tables) as t:
        assert t.probe("W:WK25,K29:BK4").result == "win"
    assert t.closed and "closed" in repr(t)
    for call in (t.probe, t.rank_moves):
        with pytest.raises(damka.TablebaseClosed) as e:
            call("W:WK25,K29:BK4")
        assert isinstance(e.value, damka.Error) and isinstance(e.value, ValueError)
        assert str(e.value) == (f"the Tablebase of {tables!r} is closed (by close() or the end of its "
                                "`with` block): open the tables again with damka.open_tables()")
    # closed comes first: a bad counter or FEN on a closed handle still says it is closed
    with pytest.raises(damka.TablebaseClosed):
        t.probe("junk", -1)
    t.close()  # twice is harmless
    t = damka.open_tables(tables)
    t.close()
    assert t.closed
    with pytest.raises(damka.TablebaseClosed):
        t.probe("W:WK25,K29:BK4")
    # an exception inside the block still closes
    with pytest.raises(KeyError):
        with damka.open_tables(tables) as t:
            raise KeyError
    assert t.closed


def test_missing_library(tables, monkeypatch, tmp_path):
    with pytest.raises(damka.LibraryError, match="cannot load"):
        damka.open_tables(tables, library=str(tmp_path / "libdamka.so"))
    monkeypatch.setenv("DAMKA_LIB", str(tmp_path / "nowhere.so"))
    with pytest.raises(damka.LibraryError, match="nowhere.so"):
        damka.open_tables(tables)


# --- the package's shape ---


def test_star_import_keeps_builtin_open():
    """`from damka import *` brings the API but not `open`: the built-in open() stays; the
    former name damka.open is still there as an attribute."""
    namespace = {}
    exec("from damka import *", namespace)
    assert "open" not in namespace and "open" not in damka.__all__
    assert "open_tables" in namespace and "TablebaseClosed" in namespace
    assert damka.open is damka.open_tables
    assert all(hasattr(damka, name) for name in damka.__all__)


def test_former_name_open(tables):
    with damka.open(tables) as t:
        assert t.probe("W:WK25,K29:BK4").result == "win"


def test_values_immutable_and_hashable(tb):
    moves = tb.rank_moves("W:WK25,K29:BK4")
    m = moves[0]
    assert isinstance(m.squares, tuple) and isinstance(m.captures, tuple)
    with pytest.raises(AttributeError):  # dataclasses.FrozenInstanceError
        m.dtw = 1
    assert len(set(moves)) == len(moves) and {m: 1}[tb.rank_moves("W:WK25,K29:BK4")[0]] == 1
    capture = next(m for fen in random_fens(200, SEED + 5) for m in tb.rank_moves(fen) if m.captures)
    assert isinstance(capture.captures, tuple) and hash(capture) == hash(capture)
    p = tb.probe("W:WK25,K29:BK4")
    assert {p: 1}[tb.probe("W:WK25,K29:BK4")] == 1
    with pytest.raises(AttributeError):
        p.result = "draw"


def test_version_follows_the_header():
    """damka.__version__ (which pyproject.toml reads) is libdamka's MAJOR.MINOR of damka.h."""
    header = (REPO / "query" / "damka.h").read_text()
    major = re.search(r"#define DAMKA_VERSION_MAJOR (\d+)", header).group(1)
    minor = re.search(r"#define DAMKA_VERSION_MINOR (\d+)", header).group(1)
    assert damka.__version__.split(".")[:2] == [major, minor]


def test_library_version_checked():
    """The library loaded must be of the package's major version, at least its minor one."""
    lib = damka._capi.load()
    assert lib.damka_version().decode().split(".")[:2] == damka.__version__.split(".")[:2]
    damka._capi.check_version("0.4", "0.4.0", "lib")
    damka._capi.check_version("0.7", "0.4.0", "lib")
    for found in ("0.3", "1.4", "nonsense", "4"):
        with pytest.raises(damka.LibraryError, match="lib"):
            damka._capi.check_version(found, "0.4.0", "lib")
