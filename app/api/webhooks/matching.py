"""Which Applications a push refreshes: repository, revision, then manifest-generate-paths.

Pure functions of the parsed push and the Applications (SEMANTICS §8, Argo CD
util/webhook). An app refreshes when one of its sources (any, for multi-source apps)

1. uses the pushed repository: its repoURL has the same `match_key` as one of the URLs
   the payload carries (https, ssh and scp forms, user, port and `.git` ignored); a
   repoURL Sluice cannot parse (a Helm or OCI chart repository) never matches;
2. follows a ref the push moved (`revision_matches`):
   - `HEAD` or empty: only when the push moved the default branch;
   - `refs/heads/x` / `refs/tags/x`: the branch / tag `x` (Sluice also checks the kind, so
     a tag named like a branch does not refresh a branch-following app);
   - a branch or tag name equal to the pushed ref's name;
   - a full commit SHA equal to the pushed `after`;
   - a semver constraint the pushed tag satisfies (tag pushes only);
3. and the push changed a file the app renders from, when the app has the
   `argocd.argoproj.io/manifest-generate-paths` annotation (`app.repo.generate_paths`). An
   unknown list of changed files, or an annotation Sluice cannot read, refreshes: a
   needless refresh costs a comparison, a missed one leaves the app behind.

Each decision carries its reason as the text a user sees in logs. Nothing here trusts the
payload's commit: a refresh makes the render stage resolve the revision itself.
"""

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.api.webhooks.pushes import PushEvent, RefChange, RefKind
from app.model.annotations import MANIFEST_GENERATE_PATHS
from app.model.app_spec import ApplicationSource
from app.model.application import Application
from app.repo.constraints import Constraint, parse_constraint, parse_version
from app.repo.errors import PathError, RepoURLError
from app.repo.generate_paths import files_changed, refresh_paths
from app.repo.urls import match_key

_FULL_SHA = re.compile(r"^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$")
_REF_PREFIXES = (("refs/heads/", RefKind.BRANCH), ("refs/tags/", RefKind.TAG))
_SHOWN_PATHS = 5


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a push refreshes one Application that uses the pushed repository, and why."""

    application: Application
    refresh: bool
    reason: str


@functools.lru_cache(maxsize=4096)
def _repo_key(repo_url: str) -> str | None:
    try:
        return match_key(repo_url)
    except RepoURLError:
        return None


@functools.lru_cache(maxsize=1024)
def _constraint(target: str) -> Constraint | None:
    return parse_constraint(target)


def revision_matches(target_revision: str, change: RefChange) -> str | None:
    """Why a source at `target_revision` follows the ref `change` moved, or None if it does not."""
    target = target_revision.strip()
    ref = change.ref
    if target.split("/", 2)[-1] in ("HEAD", ""):
        if change.touched_head:
            return f"targetRevision {target or 'HEAD'} follows the default branch, pushed as {ref}"
        return None
    for prefix, kind in _REF_PREFIXES:
        if target.startswith(prefix):
            if ref.kind is kind and ref.name == target[len(prefix) :]:
                return f"targetRevision {target} is the pushed {ref}"
            return None
    if target == ref.name:
        return f"targetRevision {target} names the pushed {ref}"
    if change.after and _FULL_SHA.match(target) and target.lower() == change.after.lower():
        return f"targetRevision {target} is the commit pushed to {ref}"
    if ref.kind is RefKind.TAG:
        constraint = _constraint(target)
        version = parse_version(ref.name)
        if constraint is not None and version is not None and constraint.allows(version):
            return f"targetRevision {target} is a version constraint the pushed {ref} satisfies"
    return None


def _source_label(application: Application, index: int) -> str:
    return f"spec.sources[{index}]" if application.spec.is_multi_source else "spec.source"


def _paths_verdict(paths: Sequence[str], change: RefChange) -> tuple[bool, str]:
    if not change.changed_files:
        return True, "the Git host did not list the changed files"
    try:
        changed = files_changed(paths, change.changed_files)
    except PathError as e:
        return True, f"{e.message}; refreshing anyway"
    if changed:
        return True, "it changed files under manifest-generate-paths"
    return False, ""


def _shown_paths(paths: Sequence[str]) -> str:
    shown = ", ".join(p or "/" for p in paths[:_SHOWN_PATHS])
    return shown + (f" and {len(paths) - _SHOWN_PATHS} more" if len(paths) > _SHOWN_PATHS else "")


def decide(event: PushEvent, application: Application) -> Decision | None:
    """The decision for one app, or None when no source of it uses the pushed repository."""
    sources: list[ApplicationSource] = application.spec.all_sources
    using = [(i, s) for i, s in enumerate(sources) if _repo_key(s.repo_url) in event.repo.keys]
    if not using:
        return None
    followed: list[tuple[RefChange, str]] = []
    for change in event.changes:
        for index, source in using:
            why = revision_matches(source.target_revision, change)
            if why is not None:
                followed.append((change, f"{_source_label(application, index)}: {why}"))
                break
    if not followed:
        targets = ", ".join(sorted({s.target_revision.strip() or "HEAD" for _, s in using}))
        moved = ", ".join(str(c.ref) for c in event.changes[:_SHOWN_PATHS])
        return Decision(
            application,
            False,
            f"no source follows the pushed ref ({moved}); targetRevision: {targets}",
        )
    annotation = application.metadata.annotations.get(MANIFEST_GENERATE_PATHS)
    paths = refresh_paths(annotation, [s.path for s in sources])
    if not paths:
        return Decision(application, True, followed[0][1])
    for change, why in followed:
        refresh, because = _paths_verdict(paths, change)
        if refresh:
            return Decision(application, True, f"{why}, and {because}")
    return Decision(
        application,
        False,
        f"{followed[0][1]}, but the push changed no file under its manifest-generate-paths "
        f"({_shown_paths(paths)}): its manifests are unchanged",
    )


def decide_all(event: PushEvent, applications: Iterable[Application]) -> list[Decision]:
    """Decisions for every app using the pushed repository, in the order given."""
    decisions = (decide(event, application) for application in applications)
    return [d for d in decisions if d is not None]
