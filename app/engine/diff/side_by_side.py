"""A side-by-side diff for people: live on the left, what a sync would make on the right.

The same inputs as `render_diff` (normalized live and predicted live, Secrets masked on
both sides consistently), laid out as rows a UI draws in two columns: unchanged lines
once on each side, a changed block as its old lines beside its new ones, an addition or
deletion against a blank. Runs of unchanged lines longer than twice `context` are folded
into one `skip` row that says how many lines it hides.
"""

import difflib
from dataclasses import dataclass
from typing import Literal

from app.engine.diff.render import yaml_lines
from app.engine.redact import mask_secret_pair
from app.model.resource import KubeObject

Tag = Literal["equal", "replace", "delete", "insert", "skip"]


@dataclass(frozen=True, slots=True)
class DiffRow:
    """One row: a line number and text per side (0 and "" where that side has none)."""

    tag: Tag
    left_line: int
    left: str
    right_line: int
    right: str


def _strip(line: str) -> str:
    return line.rstrip("\n")


def _equal_rows(
    lines: list[str], i1: int, j1: int, context: int, edges: tuple[bool, bool]
) -> list[DiffRow]:
    rows = [
        DiffRow("equal", i1 + k + 1, _strip(text), j1 + k + 1, _strip(text))
        for k, text in enumerate(lines)
    ]
    first, last = edges
    keep_head = 0 if first else context
    keep_tail = 0 if last else context
    if len(rows) <= keep_head + keep_tail + 1:
        return rows
    hidden = len(rows) - keep_head - keep_tail
    skip = DiffRow("skip", 0, f"{hidden} unchanged lines", 0, f"{hidden} unchanged lines")
    return [*rows[:keep_head], skip, *rows[len(rows) - keep_tail :]]


def side_by_side(
    normalized_live: KubeObject | None,
    predicted_live: KubeObject | None,
    *,
    context: int = 3,
) -> list[DiffRow]:
    """Rows of live vs predicted live; empty when they are equal."""
    live, predicted = mask_secret_pair(normalized_live, predicted_live)
    old, new = yaml_lines(live), yaml_lines(predicted)
    if old == new:
        return []
    opcodes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    rows: list[DiffRow] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            edges = (index == 0, index == len(opcodes) - 1)
            rows.extend(_equal_rows(old[i1:i2], i1, j1, context, edges))
            continue
        left, right = old[i1:i2], new[j1:j2]
        for k in range(max(len(left), len(right))):
            has_left, has_right = k < len(left), k < len(right)
            row_tag: Tag = (
                "replace" if has_left and has_right else "delete" if has_left else "insert"
            )
            rows.append(
                DiffRow(
                    row_tag,
                    i1 + k + 1 if has_left else 0,
                    _strip(left[k]) if has_left else "",
                    j1 + k + 1 if has_right else 0,
                    _strip(right[k]) if has_right else "",
                )
            )
    return rows
