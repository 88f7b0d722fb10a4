"""Which revision each source is rendered at, and which sources render nothing."""

from typing import Any

import pytest

from app.engine.source_plan import operation_render, plan_sources
from app.model.app_spec import ApplicationSource, ApplicationSpec
from app.model.application import Application
from app.model.codec import decode
from app.model.errors import SpecError
from app.model.meta import ObjectMeta
from app.model.operation import SyncOperation

REPO = "https://git.example.com/team/app.git"
SHA = "0123456789abcdef0123456789abcdef01234567"


def spec(*sources: dict[str, Any], multi: bool = False) -> ApplicationSpec:
    doc: dict[str, Any] = {"destination": {"server": "https://kubernetes.default.svc"}}
    if multi:
        doc["sources"] = list(sources)
    elif sources:
        (doc["source"],) = sources
    return decode(ApplicationSpec, doc)


def src(path: str = "app", revision: str = "main", **extra: Any) -> dict[str, Any]:
    return {"repoURL": REPO, "path": path, "targetRevision": revision, **extra}


@pytest.mark.parametrize(
    ("app", "asked", "expected"),
    [
        pytest.param(spec(src()), None, [("spec.source", "main", True)], id="target-revision"),
        pytest.param(
            spec(src(revision="")), None, [("spec.source", "", True)], id="empty-target-kept"
        ),
        pytest.param(spec(src()), [SHA], [("spec.source", SHA, True)], id="asked-revision-wins"),
        pytest.param(
            spec(src()), [""], [("spec.source", "main", True)], id="empty-asked-is-target"
        ),
        pytest.param(
            spec(src("a", "v1"), src("b", "main"), multi=True),
            [SHA],
            [("spec.sources[0]", SHA, True), ("spec.sources[1]", "main", True)],
            id="missing-asked-entries-are-targets",
        ),
        pytest.param(
            spec(src("a"), src("", "v2", ref="values"), multi=True),
            None,
            [("spec.sources[0]", "main", True), ("spec.sources[1]", "v2", False)],
            id="reference-only-source-renders-nothing",
        ),
        pytest.param(
            spec(src("charts/x", ref="values"), multi=True),
            None,
            [("spec.sources[0]", "main", True)],
            id="ref-source-with-a-path-renders",
        ),
        pytest.param(
            spec(src("", ref="values")),
            None,
            [("spec.source", "main", True)],
            id="ref-on-a-single-source-app-is-ignored",
        ),
    ],
)
def test_plan_sources(
    app: ApplicationSpec, asked: list[str] | None, expected: list[tuple[str, str, bool]]
) -> None:
    plans = plan_sources(app, asked)

    assert [(p.field, p.revision, p.renders) for p in plans] == expected
    assert [p.source for p in plans] == app.all_sources


@pytest.mark.parametrize(
    ("app", "asked", "message"),
    [
        pytest.param(
            spec(src(), src(), multi=True),
            [SHA, SHA, SHA],
            "spec.sources: 3 revisions were asked for but the Application has 2 source(s)",
            id="more-revisions-than-sources",
        ),
        pytest.param(
            ApplicationSpec(destination=spec(src()).destination),
            None,
            "spec.source: the Application has no source",
            id="no-source",
        ),
    ],
)
def test_plan_sources_refuses(app: ApplicationSpec, asked: list[str] | None, message: str) -> None:
    with pytest.raises(SpecError) as info:
        plan_sources(app, asked)

    assert str(info.value).startswith(message)


def application(*sources: dict[str, Any], multi: bool = False) -> Application:
    return Application(metadata=ObjectMeta(name="shop"), spec=spec(*sources, multi=multi))


SPEC_SOURCE = src("app", "main")
RECORDED = decode(ApplicationSource, src("old", SHA))
OTHER = "89abcdef0123456789abcdef0123456789abcdef"


@pytest.mark.parametrize(
    ("app", "sync", "re_resolve", "paths", "revisions"),
    [
        pytest.param(
            application(SPEC_SOURCE),
            SyncOperation(revision=SHA),
            False,
            ["app"],
            [SHA],
            id="a-sync-renders-the-spec-at-its-revision",
        ),
        pytest.param(
            application(SPEC_SOURCE),
            SyncOperation(),
            False,
            ["app"],
            None,
            id="no-revision-means-the-target-revision-now",
        ),
        pytest.param(
            application(SPEC_SOURCE),
            SyncOperation(source=RECORDED, revision=SHA),
            False,
            ["old"],
            [SHA],
            id="a-rollback-renders-the-source-it-recorded",
        ),
        pytest.param(
            application(SPEC_SOURCE, src("b"), multi=True),
            SyncOperation(sources=[RECORDED, RECORDED], revisions=[SHA, OTHER]),
            False,
            ["old", "old"],
            [SHA, OTHER],
            id="a-multi-source-rollback-renders-every-recorded-source",
        ),
        pytest.param(
            application(SPEC_SOURCE, src("b"), multi=True),
            SyncOperation(source=RECORDED, revision=SHA),
            False,
            ["old"],
            [SHA],
            id="a-recorded-single-source-replaces-the-spec-sources",
        ),
        pytest.param(
            application(SPEC_SOURCE),
            SyncOperation(source=RECORDED, revision=SHA),
            True,
            ["old"],
            None,
            id="a-retry-re-resolving-renders-at-the-target-revision",
        ),
    ],
)
def test_what_an_operation_renders(
    app: Application,
    sync: SyncOperation,
    re_resolve: bool,
    paths: list[str],
    revisions: list[str] | None,
) -> None:
    render = operation_render(app, sync, re_resolve=re_resolve)
    assert [s.path for s in render.app.spec.all_sources] == paths
    assert render.revisions == revisions
    assert render.app.name == "shop"
