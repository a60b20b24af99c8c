"""Russian draughts through the binding: damka.open_tables(dir, "russian") on Russian tables up
to 3 pieces generated once (a few seconds), against the Brazilian tables of conftest.py on
positions where the two rules give different values (docs/rules.md: a man crowned in passing
captures on as a king in Russian, ends its move on the last row in Brazilian)."""

import pytest

from conftest import generate

import damka  # noqa: E402  (conftest.py puts python/ on the path)


@pytest.fixture(scope="session")
def russian_tables(damka_bin, tmp_path_factory):
    return generate(tmp_path_factory.mktemp("ru3"), "--variant", "russian", "--pieces", "3")


def test_names(russian_tables):
    for name in ("russian", "RUSSIAN", "25"):
        with damka.open_tables(russian_tables, name) as tb:
            assert tb.variant == "russian"
            assert tb.squares == 32
            assert tb.max_pieces == 3
            assert tb.draw_rule == 30
    with pytest.raises(damka.BadArgument):
        damka.open_tables(russian_tables, "russia")


# FEN, its value and best move in Brazilian, in Russian (the man on b6 takes c7 and is crowned
# on d8: in Russian it goes on over g5 to h4 and wins; in Brazilian it stops, a lone king
# against a lone king that cannot take it: a draw). The same for Black from g3 over f2 to e1.
POSITIONS = [
    ("W:Wb6:Bc7,Kg5", ("draw", None, "b6xd8"), ("win", 1, "b6xh4")),
    ("B:WKc3,f2:Bg3", ("draw", None, "g3xe1"), ("win", 1, "g3xa5")),
]


@pytest.mark.parametrize("fen, brazilian, russian", POSITIONS)
def test_crowned_in_passing(tables, russian_tables, fen, brazilian, russian):
    for directory, variant, (result, dtw, best) in ((tables, "brazilian", brazilian),
                                                    (russian_tables, "russian", russian)):
        with damka.open_tables(directory, variant) as tb:
            p = tb.probe(fen)
            assert (p.result, p.dtw) == (result, dtw), variant
            moves = tb.rank_moves(fen)
            assert moves[0].notation == best, variant
            # the capturing man ends a king either way: on the last row, or crowned in passing
            assert all(m.promotes for m in moves), variant


def test_russian_tables_refuse_a_brazilian_handle(russian_tables):
    # the directory holds no Brazilian tables: a Brazilian probe finds none
    with damka.open_tables(russian_tables, "brazilian") as tb:
        assert tb.max_pieces == 0
        with pytest.raises(damka.NotInTables):
            tb.probe("W:Wb6:Bc7,Kg5")
