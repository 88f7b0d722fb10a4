"""Side-by-side diff rows: changed lines beside each other, long unchanged runs folded,
Secret values masked on both sides."""

from app.engine.diff.side_by_side import DiffRow, side_by_side
from app.engine.redact import MASK


def _config(**data: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data}


def test_equal_objects_have_no_rows() -> None:
    assert side_by_side(_config(a="1"), _config(a="1")) == []


def test_a_changed_line_sits_beside_its_replacement() -> None:
    rows = side_by_side(_config(a="1", b="2"), _config(a="1", b="3", c="4"))
    changed = [r for r in rows if r.tag != "equal"]
    assert changed == [
        DiffRow("replace", 4, "  b: '2'", 4, "  b: '3'"),
        DiffRow("insert", 0, "", 5, "  c: '4'"),
    ]


def test_a_resource_to_prune_is_all_deletions() -> None:
    rows = side_by_side(_config(a="1"), None)
    assert rows and all(r.tag == "delete" and r.right_line == 0 for r in rows)


def test_long_unchanged_runs_are_folded_keeping_context() -> None:
    many = {f"k{i:02}": "v" for i in range(30)}
    rows = side_by_side(_config(**many), _config(**(many | {"k15": "changed"})), context=2)
    tags = [r.tag for r in rows]
    assert tags.count("skip") == 2 and tags.count("replace") == 1
    first_skip = rows[tags.index("skip")]
    assert first_skip.left.endswith("unchanged lines")
    replace_at = tags.index("replace")
    assert tags[replace_at - 2 : replace_at] == ["equal", "equal"]


def test_secret_values_are_masked_consistently() -> None:
    live = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"pw": "b2xk"}}
    new = live | {"data": {"pw": "bmV3"}}
    rows = side_by_side(live, new)
    text = " ".join(r.left + r.right for r in rows)
    assert "b2xk" not in text and "bmV3" not in text and MASK in text
    assert any(r.tag == "replace" for r in rows), "a changed value still shows as changed"
