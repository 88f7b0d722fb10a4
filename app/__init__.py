"""Sluice: GitOps continuous delivery with Argo CD's sync semantics, event-driven.

`app` holds the shared core (model, engine) and the edges (bus, store, cluster,
localcluster, api, cli); `workers` holds the pipeline stages.
"""
