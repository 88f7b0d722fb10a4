"""Which apps a change of repository credentials or trust refreshes, and why.

Argo CD does not refresh apps when a repository Secret changes: an app whose render
failed waits for its next resync (argo-cd#9859). Sluice refreshes (`latest`) the apps
that are in a repository error (their status shows a ComparisonError, or a run of
repository errors is in its grace period) and one of whose sources is reached
differently now (its credentials,
their Secrets, scope, known_hosts or CA bundle changed), so a fixed password is tried at
once. Apps that render fine are left alone: a routine rotation (a token renewed every
few minutes) costs nothing.
"""

from collections.abc import Iterable, Sequence

from app.engine.refresh_triggers import RefreshAsk
from app.model.status import CONDITION_COMPARISON_ERROR
from app.model.sync import RefreshLevel


def in_repository_error(condition_types: Iterable[str], repo_error_since: str) -> bool:
    """Whether an app's last comparison failed to render (shown, or kept in the grace
    period since `repo_error_since`)."""
    return bool(repo_error_since) or CONDITION_COMPARISON_ERROR in condition_types


def credential_refresh(in_repo_error: bool, changed_repos: Sequence[str]) -> RefreshAsk | None:
    """The refresh for an app whose sources' repositories `changed_repos` (display URLs)
    are reached differently now; None when it needs none."""
    if not in_repo_error or not changed_repos:
        return None
    repos = ", ".join(dict.fromkeys(changed_repos))
    return RefreshAsk(RefreshLevel.LATEST, f"repository credentials or trust changed for {repos}")
