"""The pipeline stages: one package per worker, each a thin loop around `app.engine`.

Each package is independent of the others (checked by lint-imports); what they share is
in `app.runtime`. `registry` names them for `sluice up` and `sluice worker <name>`.
"""
