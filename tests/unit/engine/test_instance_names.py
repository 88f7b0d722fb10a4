"""An app's instance name on the objects it tracks (Argo CD's `<namespace>_<name>` rule)."""

import pytest

from app.engine.instance_names import instance_name, tracking_name
from app.engine.tracking import TrackingMethod, owning_app, set_tracking
from app.model.errors import SpecError

NAMES = [
    ("control-plane", "sluice", "guestbook", "guestbook"),
    ("no-namespace", "", "guestbook", "guestbook"),
    ("other-namespace", "team-a", "guestbook", "team-a_guestbook"),
]


@pytest.mark.parametrize(("namespace", "name", "expected"), [n[1:] for n in NAMES],
                         ids=[n[0] for n in NAMES])  # fmt: skip
def test_instance_name(namespace: str, name: str, expected: str) -> None:
    assert instance_name(namespace, name, control_namespace="sluice") == expected


@pytest.mark.parametrize("method", list(TrackingMethod), ids=[m.value for m in TrackingMethod])
def test_tracking_name_is_what_owning_app_reads_back(method: TrackingMethod) -> None:
    name = "team-a_" + "x" * 70 if method is not TrackingMethod.LABEL else "team-a_web"
    namespace, app = name.split("_")
    target = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "d"}}
    instance = instance_name(namespace, app, control_namespace="sluice")
    tracked = set_tracking(target, app=instance, method=method, default_namespace="d")
    expected = tracking_name(namespace, app, control_namespace="sluice", method=method)
    assert owning_app(tracked, method) == expected


def test_label_tracking_cannot_hold_a_long_name() -> None:
    with pytest.raises(SpecError, match=r"metadata\.name"):
        tracking_name("team-a", "x" * 70, control_namespace="sluice", method=TrackingMethod.LABEL)
