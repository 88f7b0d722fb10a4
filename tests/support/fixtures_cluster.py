"""Fixtures for the in-process local cluster (owned by the local-cluster work)."""
