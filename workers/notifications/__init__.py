"""The notifications worker (`worker`): Argo CD Notifications on Sluice's event stream.

- `config_source.py` follows `argocd-notifications-cm` and `argocd-notifications-secret`
  in the control-plane namespace (one LIST+WATCH each) and keeps the parsed configuration
  in force (`app.engine.notifications.config`).
- `evaluation.py` consumes SLUICE_EVENTS through the durable consumer
  `sluice-notifications`: for each event it reads the app as Argo CD would show it
  (registry and status store), decides what to send (`app.engine.notifications.decide`),
  forgets the records of conditions no longer true and publishes one
  `sluice.notify.<app>` message per notification, rendered.
- `delivery.py` consumes `sluice.notify.<app>`: it sends each notification at most once
  (a lock while sending, a record once sent), retries a failing receiver with backoff
  (the message's redelivery delay, so nothing else waits) and gives up after
  `NotificationSettings.max_attempts`, saying so.
"""
