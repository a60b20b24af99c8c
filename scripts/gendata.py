"""What the scripts reading damka gen's output share (scripts/task-costs, tableset-report,
plot-stats, lidraughts-check): a material's name, and the file DAMKA_TASK_TIMES names
(gen/run/tasktimes.h, one tab-separated line a task)."""
import re

MATERIAL_RE = re.compile(r"^(\d+)m(\d+)k-(\d+)m(\d+)k$")

COLUMNS = ("variant", "kind", "material", "twin", "level", "positions", "kings", "ranks", "cpu", "wall", "pid")


def read_tasks(paths):
    """The tasks of the files as dicts of COLUMNS (numbers as numbers). Raises ValueError with
    "path:line: what" on a line that is not a task's."""
    rows = []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                cols = line.rstrip("\n").split("\t")
                if len(cols) != len(COLUMNS):
                    raise ValueError(f"{path}:{n}: {len(cols)} columns, not the {len(COLUMNS)} of a task's line")
                r = dict(zip(COLUMNS, cols))
                try:
                    for k in ("level", "positions", "kings", "ranks"):
                        r[k] = int(r[k])
                    for k in ("cpu", "wall"):
                        r[k] = float(r[k])
                except ValueError as e:
                    raise ValueError(f"{path}:{n}: {e}") from None
                rows.append(r)
    return rows


def material_counts(material):
    """A material name such as 1m2k-0m1k as ((white men, white kings), (black men, black kings)).
    Raises ValueError on another name."""
    m = MATERIAL_RE.match(material)
    if not m:
        raise ValueError(f"unexpected material name '{material}'")
    wm, wk, bm, bk = map(int, m.groups())
    return (wm, wk), (bm, bk)


def pieces_of(material):
    """The pieces of a material name such as 1m2k-0m1k (4). Raises ValueError on another name."""
    return sum(map(sum, material_counts(material)))
