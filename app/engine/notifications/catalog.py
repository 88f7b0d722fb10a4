"""The triggers and templates Sluice ships: the eight of Argo CD's catalog, by name.

A subscription to `on-sync-succeeded` works without configuring the trigger, as it does
once Argo CD's catalog is installed. A `trigger.<name>` or `template.<name>` in the
ConfigMap replaces the shipped one of that name. The conditions say what Argo CD's
catalog says; the wording of the messages is Sluice's own. Links to the app use
`context.argocdUrl` when the ConfigMap's `context` sets it.
"""

TRIGGERS: dict[str, str] = {
    "on-created": """
- description: The Application appeared.
  when: "true"
  oncePer: app.metadata.name
  send: [app-created]
""",
    "on-deleted": """
- description: The Application is being deleted.
  when: app.metadata.deletionTimestamp != nil
  oncePer: app.metadata.name
  send: [app-deleted]
""",
    "on-deployed": """
- description: A sync succeeded and the app is Healthy after it; once per revision.
  when: >-
    app.status.operationState?.phase == 'Succeeded'
    and app.status.health.status == 'Healthy'
    and (app.status.health.lastTransitionTime in [nil, '']
         or !time.Parse(app.status.health.lastTransitionTime).Add(1 * time.Minute)
               .Before(time.Parse(app.status.operationState.finishedAt))
         or time.Parse(app.status.health.lastTransitionTime)
               .Before(time.Parse(app.status.operationState.startedAt)))
  oncePer: app.status.operationState?.syncResult?.revision
  send: [app-deployed]
""",
    "on-health-degraded": """
- description: The app's health is Degraded.
  when: app.status.health.status == 'Degraded'
  oncePer: app.status.operationState?.syncResult?.revision
  send: [app-health-degraded]
""",
    "on-sync-failed": """
- description: A sync ended in Failed or Error.
  when: app.status.operationState?.phase in ['Error', 'Failed']
  oncePer: app.status.operationState?.syncResult?.revision
  send: [app-sync-failed]
""",
    "on-sync-running": """
- description: A sync is running.
  when: app.status.operationState?.phase == 'Running'
  oncePer: app.status.operationState?.syncResult?.revision
  send: [app-sync-running]
""",
    "on-sync-status-unknown": """
- description: The app's sync status is Unknown.
  when: app.status.sync.status == 'Unknown'
  oncePer: app.status.operationState?.syncResult?.revision
  send: [app-sync-status-unknown]
""",
    "on-sync-succeeded": """
- description: A sync succeeded.
  when: app.status.operationState?.phase == 'Succeeded'
  oncePer: app.status.operationState?.syncResult?.revision
  send: [app-sync-succeeded]
""",
}

_LINK = (
    "{{if .context.argocdUrl}}{{.context.argocdUrl}}/applications/"
    "{{.app.metadata.namespace}}/{{.app.metadata.name}}{{end}}"
)


def _template(headline: str, color: str, *, detail: str = "") -> str:
    """A message, an email subject and a Slack attachment saying `headline` about the app."""
    return f"""
message: |
  {headline}
  Sync: {{{{.app.status.sync.status}}}}, health: {{{{.app.status.health.status}}}}.{detail}
  {{{{- if .context.argocdUrl}}}}
  {_LINK}
  {{{{- end}}}}
email:
  subject: "{headline}"
slack:
  attachments: |
    [{{
      "title": {{{{toJson .app.metadata.name}}}},
      "title_link": "{_LINK}",
      "color": "{color}",
      "fields": [
        {{"title": "Sync", "value": {{{{toJson .app.status.sync.status}}}}, "short": true}},
        {{"title": "Health", "value": {{{{toJson .app.status.health.status}}}}, "short": true}},
        {{"title": "Revision", "value": {{{{toJson .app.status.sync.revision}}}}, "short": true}}
      ]
    }}]
"""


_OPERATION = (
    " Operation {{.app.status.operationState.phase}}"
    "{{with .app.status.operationState.message}}: {{.}}{{end}}."
)

TEMPLATES: dict[str, str] = {
    "app-created": _template("Application {{.app.metadata.name}} was created.", "#2c7be5"),
    "app-deleted": _template("Application {{.app.metadata.name}} is being deleted.", "#6e84a3"),
    "app-deployed": _template(
        "Application {{.app.metadata.name}} is deployed at revision "
        "{{.app.status.operationState.syncResult.revision}}.",
        "#18be52",
    ),
    "app-health-degraded": _template(
        "Application {{.app.metadata.name}} is Degraded.",
        "#f4c030",
        detail="{{with .app.status.health.message}} {{.}}{{end}}",
    ),
    "app-sync-failed": _template(
        "Syncing application {{.app.metadata.name}} failed.", "#e96d76", detail=_OPERATION
    ),
    "app-sync-running": _template(
        "Application {{.app.metadata.name}} is syncing.", "#0dadea", detail=_OPERATION
    ),
    "app-sync-status-unknown": _template(
        "The sync status of application {{.app.metadata.name}} is Unknown.",
        "#e96d76",
        detail="{{range .app.status.conditions}} {{.type}}: {{.message}}{{end}}",
    ),
    "app-sync-succeeded": _template(
        "Application {{.app.metadata.name}} was synced.", "#18be52", detail=_OPERATION
    ),
}
