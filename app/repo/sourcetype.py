"""Which kind of source an Application source is (Argo CD's explicit type, then discovery).

Explicit: `chart` or a `helm` block → Helm; `kustomize` → Kustomize; `plugin` → Plugin;
`directory` → Directory; two of them at once is an error, as in Argo CD. Otherwise the
files under source.path decide: `Chart.yaml` → Helm, `kustomization.yaml`/`.yml` or
`Kustomization` → Kustomize, anything else → Directory. The directory renderer refuses the
other kinds by name rather than applying a kustomization.yaml as if it were a manifest.
"""

import enum

from app.model.app_spec import ApplicationSource
from app.repo.errors import RenderError
from app.repo.tree import NodeKind, RepoTree

KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
HELM_CHART_FILE = "Chart.yaml"


class SourceType(enum.StrEnum):
    DIRECTORY = "Directory"
    HELM = "Helm"
    KUSTOMIZE = "Kustomize"
    PLUGIN = "Plugin"


def explicit_type(source: ApplicationSource, *, field: str) -> SourceType | None:
    declared = [
        kind
        for kind, present in (
            (SourceType.HELM, bool(source.chart) or bool(source.helm)),
            (SourceType.KUSTOMIZE, bool(source.kustomize)),
            (SourceType.PLUGIN, bool(source.plugin)),
            (SourceType.DIRECTORY, source.directory is not None),
        )
        if present
    ]
    if len(declared) > 1:
        names = ", ".join(k.value for k in declared)
        raise RenderError(f"{field}: multiple source types are set ({names}); keep exactly one")
    return declared[0] if declared else None


def source_type(
    source: ApplicationSource, tree: RepoTree, app_dir: str, *, field: str
) -> SourceType:
    """The source's type: explicit if declared, else discovered from files in `app_dir`."""
    declared = explicit_type(source, field=field)
    if declared is not None:
        return declared
    names = set(tree.list_dir(app_dir))
    prefix = f"{app_dir}/" if app_dir else ""
    if HELM_CHART_FILE in names and tree.kind(prefix + HELM_CHART_FILE) is not NodeKind.DIR:
        return SourceType.HELM
    if any(n in names for n in KUSTOMIZATION_FILES):
        return SourceType.KUSTOMIZE
    return SourceType.DIRECTORY
