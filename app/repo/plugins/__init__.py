"""Config Management Plugins: Argo CD's `ConfigManagementPlugin` spec, run by the render worker.

spec.py reads a plugin.yaml; registry.py finds the plugins of a render host (one directory,
Argo CD's sidecar layout); environment.py builds what the commands see (the build
environment, `ARGOCD_ENV_*`, parameters, nothing of the worker's own); run.py selects a
plugin by name or discovery and runs `init` and `generate` in a throwaway checkout with a
deadline, output and memory caps and a process-group kill.
"""
