"""Who may do what: Argo CD's RBAC, decided without I/O.

Argo CD's model, enforced with the `casbin` library as Argo CD enforces it with casbin's
Go port: a request is (subject, resource, action, object); `p` lines grant or deny,
`g` lines put a subject in a role, a deny among the lines that match beats an allow.

- `policy`: `argocd-rbac-cm` read as Argo CD reads it (`policy.csv` and `policy.*.csv`,
  `policy.default`, `policy.matchMode`, `scopes`), each line checked, a bad map refused
  whole naming every bad line.
- `builtin`: `role:readonly` and `role:admin`.
- `enforcer`: the decision. The default role is tried first (a deny cannot take it away,
  as in Argo CD), then the subject, then each of its groups (the claims `scopes` names).
  A project role's subject (`proj:<project>:<role>`) is decided by its project's role
  policies alone for objects of that project.
- `project_roles`: an AppProject's roles as policy lines, every line confined to the
  project; the lookup of a role's issued tokens (revocation).
- `accounts`: local accounts (`accounts.<name>` in argocd-cm, their tokens in
  argocd-secret).
- `jwt_tokens`: the signed tokens of accounts and project roles, as Argo CD issues them.
"""
