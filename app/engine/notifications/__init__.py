"""Argo CD Notifications, decided without I/O: which message goes to whom, and its text.

The configuration is Argo CD's `argocd-notifications-cm` and `argocd-notifications-secret`,
read unchanged (`config.py`; the services in `services.py`): `trigger.<name>` (a list of
conditions: `when`, `oncePer`, `send`), `template.<name>` (`message`, `email.subject`,
`slack.*`, `webhook.<name>.*`), `service.<type>[.<name>]` (webhook, slack, email; `$key`
references read from the Secret), `subscriptions`, `defaultTriggers`,
`defaultTriggers.<service>` and `context`.
Sluice ships the catalog's eight triggers and their templates (`catalog.py`, written for
Sluice); a trigger or template of the same name in the ConfigMap replaces the shipped one.

Subscriptions (`subscriptions.py`) come from `notifications.argoproj.io/subscribe.<trigger>.
<service>: <recipient>[;<recipient>]` annotations on the Application and its AppProject
(`subscribe.<service>` uses the default triggers), and from the ConfigMap's
`subscriptions` selecting apps by label.

`when` and `oncePer` are expressions in a bounded subset of the expr language Argo CD
uses (`expr.py`); message bodies are Go templates in a bounded subset of text/template
with a few Sprig functions (`gotemplate.py`; its functions in `template_functions.py`);
both get the same helpers (`functions.py`: `time.Now`, `time.Parse`, durations,
`strings.*`). Neither ever runs user code: they walk their own syntax tree over the
Application's JSON.

`decide.py` evaluates an app's triggers for its destinations and says what to send and
which "already notified" records to forget, as notifications-engine does: a condition
sends once when it becomes true, and again only after it was seen false; with `oncePer`,
once per value of that expression, ever.
"""
