#!/usr/bin/env python3
"""Prints the ten longest wins of a directory of damka tables.

    python3 python/examples/longest_wins.py TABLE_DIR

Where the answer comes from: the statistics `damka gen` wrote, not a sweep of probes. While
it generates a table the generator sees every position anyway, and records the longest win
(its length in plies and one position, White to move) and the histogram of DTW values in the
table's `.stats` file, collected for the whole directory in `manifest.json` (gen/store/stats.c,
gen/finish/manifest.c). Reading them takes milliseconds. Probing instead would mean enumerating
every position in Python (libdamka has no call for that) and probing each, millions of ctypes
calls for 4 pieces and billions for 6, and would find the same numbers.

So the list is one position per table: the ten tables (materials) with the longest wins, each
with the position the generator recorded and how many positions of the table win in that
many plies. Black-to-move positions are the colour-swapped tables, so the list covers both
sides to move. Each position is then probed through libdamka, to check the figure and to show
its value under the draw rule (a long win may be a cursed win: a draw under the rule).

manifest.json is written when a run ends; without it (a run still under way) the `.stats`
files are read directly.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the damka package beside examples/

import damka  # noqa: E402


def from_manifest(path):
    """(variant, [(plies, material, fen, positions of that length)]) from manifest.json, of its
    first variant (a directory may hold both)."""
    m = json.loads(path.read_text())["variants"][0]
    wins = []
    for t in m["tables"]:
        lw = t.get("longest_win")
        if lw:
            wins.append((lw["plies"], t["material"], lw["fen"], t["dtw_histogram"].get(str(lw["plies"]))))
    return m["variant"], wins


def from_stats(directory):
    """The same from the .stats files ("material 1m2k-0m1k", "longest_win 47 FEN" or
    "longest_win 0 -", "histogram 1:127054 3:39169 ..."), named VARIANT-MATERIAL.stats."""
    variant, wins = None, []
    for path in sorted(directory.glob("*.stats")):
        fields = {}
        for line in path.read_text().splitlines():
            key, _, rest = line.partition(" ")
            fields.setdefault(key, rest)
        plies, _, fen = fields.get("longest_win", "0 -").partition(" ")
        if int(plies) == 0:
            continue
        histogram = dict(item.split(":") for item in fields.get("histogram", "").split())
        count = histogram.get(plies)
        wins.append((int(plies), fields["material"], fen, int(count) if count else None))
        variant = variant or path.name.split("-")[0]
    return variant, wins


def main(argv):
    if len(argv) != 2:
        print(f"usage: {argv[0]} TABLE_DIR", file=sys.stderr)
        return 2
    directory = Path(argv[1])
    if not directory.is_dir():
        print(f"{directory}: no such directory", file=sys.stderr)
        return 1
    manifest = directory / "manifest.json"
    variant, wins = from_manifest(manifest) if manifest.exists() else from_stats(directory)
    if not wins:
        print(f"{directory}: no statistics of tables with a win (made by `damka gen`?)", file=sys.stderr)
        return 1
    wins.sort(key=lambda w: (-w[0], w[1]))
    try:
        tb = damka.open_tables(directory, variant)
    except damka.Error as e:
        print(f"{directory}: {e}", file=sys.stderr)
        return 1
    with tb:
        rule = f"under the {tb.draw_rule // 2}-move rule" if tb.draw_rule else "no draw-rule tables"
        print(f"{'plies':>5}  {'material':<11} {'positions':>9}  {rule:<28} position (White to move)")
        for plies, material, fen, count in wins[:10]:
            try:
                p = tb.probe(fen)
            except damka.Error as e:  # a table the statistics name but the directory lacks
                value = f"({e})"
            else:
                if (p.result, p.dtw) != ("win", plies):
                    value = f"MISMATCH: probe says {p.result} {p.dtw}"
                elif p.category is None:
                    value = "-"
                elif p.dtc is not None:
                    value = f"{p.category}, DTC {p.dtc}"
                else:
                    value = p.category
            print(f"{plies:>5}  {material:<11} {count if count is not None else '?':>9}  {value:<28} {fen}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
