"""The API's metrics registry: what `/metrics` serves, in Prometheus text format."""

from prometheus_client.parser import text_string_to_metric_families

from app.api.metrics import WEBHOOK_REFRESHES, WEBHOOK_REQUESTS, exposition


def _sample(text: str, name: str, labels: dict[str, str]) -> float | None:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return None


def test_webhook_counters_are_exposed_with_their_labels() -> None:
    labels = {"provider": "gitea", "outcome": "too_large"}
    before = _sample(exposition()[0].decode(), "sluice_webhook_requests_total", labels) or 0.0
    WEBHOOK_REQUESTS.labels(**labels).inc()
    WEBHOOK_REFRESHES.labels(provider="gitea").inc(3)

    body, content_type = exposition()
    text = body.decode()

    assert content_type.startswith("text/plain; version=")
    assert _sample(text, "sluice_webhook_requests_total", labels) == before + 1
    assert (_sample(text, "sluice_webhook_refreshes_total", {"provider": "gitea"}) or 0) >= 3
    assert "# HELP sluice_webhook_requests_total Git host webhook requests" in text
