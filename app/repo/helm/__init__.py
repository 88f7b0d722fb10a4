"""Helm sources: charts in Git, in Helm repositories and OCI registries, rendered by Helm.

What this package decides, and why:

- **Which Helm** (engine.py, the only module that knows): Helm v4's own Go SDK through the
  `helm-python-sdk` binding, in a child process with a deadline, an address-space cap, an
  output cap and a process-group kill (docs/decisions.md says why this engine).
- **What the render is told** (options.py, values.py, render.py): every `source.helm`
  field Argo CD has, with Argo CD's precedence and path rules, the app's build
  environment, and `.Capabilities` of the destination cluster.
- **Where charts come from**: a Git checkout (render.py), a Helm repository's index and
  archive (repository.py, archive.py) or an OCI registry (oci.py), fetched with the
  repositories' own credentials, sent only to the chart repository's host unless
  `passCredentials`; missing dependencies likewise (dependencies.py). A repository
  Secret's connection check reads the same way (connection.py).
- **What stays out**: value files and file parameters outside the checkout (or a `ref`
  source's checkout), remote value files, more value bytes than the settings allow, chart
  archives that are too big, hold too many files, or have entries or links leaving their
  directory.
"""
