"""Which revision each source of an app is rendered at, and which sources render at all.

An app has one source (`spec.source`) or several (`spec.sources`, which wins when set).
A render is asked for the app at given revisions (an operation's `sync.revision` or
`sync.revisions`), or at none, meaning "every source's targetRevision now". Each source
gets the revision asked for at its position, else its own targetRevision: Argo CD fills
missing and empty entries the same way. More revisions than sources cannot be matched to
sources and is refused. A reference-only source of a multi-source app (`ref` set, no
`path`, no `chart`) lends its files to the other sources (Helm value files) and renders
nothing of its own, as in Argo CD; its revision is still resolved, because the others
read its files at that commit. Messages name a source by its field: `spec.source`, or
`spec.sources[i]` in a multi-source app.

A sync operation renders the app as `operation_render` says: a rollback (an operation
whose `sync.source` or `sync.sources` is set, from a history entry) renders the source(s)
it recorded instead of the spec's, at the revisions the operation names; a retry asked to
re-resolve (`retry.refresh`) renders at every source's targetRevision now.
"""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from app.model.app_spec import ApplicationSource, ApplicationSpec
from app.model.application import Application
from app.model.errors import SpecError
from app.model.operation import SyncOperation


@dataclass(frozen=True, slots=True)
class SourcePlan:
    """One source of a render: what to resolve, and whether it produces manifests."""

    field: str
    """The source as messages name it: `spec.source` or `spec.sources[i]`."""
    source: ApplicationSource
    revision: str
    """The revision to resolve: the one asked for, else the source's targetRevision."""
    renders: bool
    """False for a reference-only source: resolved, but it renders nothing."""


def is_reference_only(source: ApplicationSource, *, multi: bool) -> bool:
    """A multi-source app's `ref` source without a path or chart of its own."""
    return multi and bool(source.ref) and not source.path.strip() and not source.chart


def plan_sources(spec: ApplicationSpec, revisions: Sequence[str] | None = None) -> list[SourcePlan]:
    """One plan per source, in source order; SpecError names what to fix."""
    sources = spec.all_sources
    if not sources:
        raise SpecError(
            "spec.source",
            "the Application has no source; set spec.source (repoURL, path, "
            "targetRevision) or spec.sources",
        )
    asked = list(revisions or ())
    if len(asked) > len(sources):
        raise SpecError(
            "spec.sources" if spec.is_multi_source else "spec.source",
            f"{len(asked)} revisions were asked for but the Application has {len(sources)} "
            "source(s); give one revision per source",
        )
    asked += [""] * (len(sources) - len(asked))
    multi = spec.is_multi_source
    return [
        SourcePlan(
            f"spec.sources[{index}]" if multi else "spec.source",
            source,
            wanted.strip() or source.target_revision,
            not is_reference_only(source, multi=multi),
        )
        for index, (source, wanted) in enumerate(zip(sources, asked, strict=True))
    ]


@dataclass(frozen=True, slots=True)
class OperationRender:
    """What a sync operation renders: the app with the source(s) it syncs, and where."""

    app: Application
    """The app as the operation renders it: a rollback's recorded source(s), else the spec's."""
    revisions: list[str] | None
    """The revision of each source, in order; None: every source's targetRevision now."""


def operation_render(app: Application, sync: SyncOperation, *, re_resolve: bool) -> OperationRender:
    """What `sync` renders (`re_resolve`: a retry that resolves the revisions again)."""
    if sync.sources:
        rendered = replace(app, spec=replace(app.spec, source=None, sources=list(sync.sources)))
    elif sync.source is not None:
        rendered = replace(app, spec=replace(app.spec, source=sync.source, sources=[]))
    else:
        rendered = app
    if re_resolve:
        return OperationRender(rendered, None)
    if sync.revisions:
        return OperationRender(rendered, list(sync.revisions))
    return OperationRender(rendered, [sync.revision] if sync.revision else None)
