"""The data Sluice reads and writes, spelled as Argo CD spells it.

Application and AppProject (`argoproj.io/v1alpha1`) are parsed from the YAML/JSON a user
already has, unchanged: field names, defaults and enum strings are Argo CD's. Unknown
fields are kept and written back, so a round trip never loses what a newer Argo CD (or a
tool beside Sluice) put there. Validation errors name the field path and the problem.

Nothing here performs I/O; the engine and every edge share these types.
"""
