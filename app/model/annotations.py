"""Annotation and label names Sluice reads on resources, exactly as Argo CD spells them."""

TRACKING_ID = "argocd.argoproj.io/tracking-id"
"""`<app>:<group>/<kind>:<namespace>/<name>`: the object belongs to that app."""
INSTANCE_LABEL = "app.kubernetes.io/instance"
"""Label tracking (and `annotation+label`): the app name, 63 characters at most."""

SYNC_WAVE = "argocd.argoproj.io/sync-wave"
HOOK = "argocd.argoproj.io/hook"
HOOK_DELETE_POLICY = "argocd.argoproj.io/hook-delete-policy"
SYNC_OPTIONS = "argocd.argoproj.io/sync-options"
COMPARE_OPTIONS = "argocd.argoproj.io/compare-options"
DELETION_APPROVED = "argocd.argoproj.io/deletion-approved"
IGNORE_HEALTHCHECK = "argocd.argoproj.io/ignore-healthcheck"
REFRESH = "argocd.argoproj.io/refresh"
"""On an Application: `normal` or `hard` asks for a refresh; removed once handled."""
MANIFEST_GENERATE_PATHS = "argocd.argoproj.io/manifest-generate-paths"

HOOK_FINALIZER = "argocd.argoproj.io/hook-finalizer"
RESOURCES_FINALIZER = "resources-finalizer.argocd.argoproj.io"
"""On an Application: delete its resources (cascade) before the app goes away."""

HELM_HOOK = "helm.sh/hook"
HELM_HOOK_WEIGHT = "helm.sh/hook-weight"
HELM_HOOK_DELETE_POLICY = "helm.sh/hook-delete-policy"

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
