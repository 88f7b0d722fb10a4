"""The build environment Argo CD gives a render, and `$VAR` substitution with it.

Argo CD names the app, its revision and its source to every renderer: `ARGOCD_APP_NAME`,
`ARGOCD_APP_NAMESPACE`, `ARGOCD_APP_REVISION` (the resolved commit, or a chart version),
`ARGOCD_APP_REVISION_SHORT` (7 characters), `ARGOCD_APP_REVISION_SHORT_8`,
`ARGOCD_APP_SOURCE_PATH`, `ARGOCD_APP_SOURCE_REPO_URL`, `ARGOCD_APP_SOURCE_TARGET_REVISION`,
plus `KUBE_VERSION` and `KUBE_API_VERSIONS` of the destination cluster. Helm sources see
them through `substitute` in parameter values and value-file paths (not in `values` or
`valuesObject`, as in Argo CD); plugins get them as environment variables.

`substitute` follows Go's `os.Expand` as Argo CD uses it: `${NAME}` and `$NAME` become the
variable's value, or nothing when it is not set; `$$` is a literal `$`; a `$` followed by
anything else stays as written.
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_REFERENCE = re.compile(r"\$(?:\$|\{([^{}]*)\}|([A-Za-z0-9_]+))")


@dataclass(frozen=True, slots=True)
class BuildTarget:
    """What the build environment describes: the app, one of its sources, where it goes."""

    app_name: str
    app_namespace: str
    revision: str
    """The source's resolved revision: a commit SHA, or a Helm chart's version."""
    source_path: str
    source_repo_url: str
    source_target_revision: str
    kube_version: str = ""
    api_versions: Sequence[str] = ()


def build_environment(target: BuildTarget) -> dict[str, str]:
    """The variables Argo CD sets for a render of `target`, by name."""
    return {
        "ARGOCD_APP_NAME": target.app_name,
        "ARGOCD_APP_NAMESPACE": target.app_namespace,
        "ARGOCD_APP_REVISION": target.revision,
        "ARGOCD_APP_REVISION_SHORT": target.revision[:7],
        "ARGOCD_APP_REVISION_SHORT_8": target.revision[:8],
        "ARGOCD_APP_SOURCE_PATH": target.source_path,
        "ARGOCD_APP_SOURCE_REPO_URL": target.source_repo_url,
        "ARGOCD_APP_SOURCE_TARGET_REVISION": target.source_target_revision,
        "KUBE_VERSION": target.kube_version,
        "KUBE_API_VERSIONS": ",".join(target.api_versions),
    }


def substitute(text: str, env: Mapping[str, str]) -> str:
    """`text` with `$NAME`, `${NAME}` and `$$` expanded from `env` (unset names: "")."""

    def expand(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        return env.get(match.group(1) or match.group(2) or "", "")

    return _REFERENCE.sub(expand, text)
