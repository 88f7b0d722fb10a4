"""Key layout: per-app keys share a hash tag, and no name can break out of its slot in a key."""

import pytest

from app.model.identity import AppRef
from app.store import keys

APP = AppRef("team-a", "web.frontend")


def _tag(key: str) -> str:
    return key[key.index("{") + 1 : key.index("}")]


def test_keys_touched_together_share_a_hash_tag() -> None:
    per_app = [keys.status, keys.compare_seq, keys.operation, keys.history, keys.history_seq]
    assert {_tag(f(APP)) for f in per_app} == {"team-a/web.frontend"}
    assert _tag(keys.live(APP)) == _tag(keys.live_warm(APP))
    coalescing = [keys.pending("compare", APP), keys.inflight("compare", APP)]
    assert {_tag(k) for k in coalescing} == {_tag(keys.work_lease("compare", APP))}


def test_stages_do_not_share_pending_work() -> None:
    assert keys.pending("compare", APP) != keys.pending("sync", APP)


class _Named:
    def __init__(self, namespace: str, name: str) -> None:
        self.namespace = namespace
        self.name = name


@pytest.mark.parametrize(
    ("namespace", "name"),
    [
        pytest.param("a/b", "c", id="slash-in-namespace"),
        pytest.param("a", "b}x{", id="hash-tag-breakout"),
        pytest.param("", "c", id="empty-namespace"),
        pytest.param("a", "x" * 254, id="too-long"),
    ],
)
def test_names_that_could_break_the_layout_are_refused(namespace: str, name: str) -> None:
    with pytest.raises(ValueError, match="invalid Application"):
        keys.status(_Named(namespace, name))


@pytest.mark.parametrize("stage", ["compare:x", "", "a b"])
def test_stage_names_are_identifiers(stage: str) -> None:
    with pytest.raises(ValueError, match="invalid stage"):
        keys.pending(stage, APP)
