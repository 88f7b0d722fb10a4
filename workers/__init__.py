"""The pipeline stages: one module per worker, each a thin loop around `app.engine`."""
