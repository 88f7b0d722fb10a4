"""`needs_kustomize`: skip a test, saying why, on a machine with neither kustomize nor
kubectl (CI installs kubectl through .ci/install-kubectl, so there it always runs)."""

import pytest

from app.repo.kustomize import find_tool

needs_kustomize = pytest.mark.skipif(
    find_tool() is None, reason="neither kustomize nor kubectl is on PATH (.ci/install-kubectl)"
)
