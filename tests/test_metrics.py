"""Prometheus text rendering and the events the service counts."""

from __future__ import annotations

from pipeline.events import AssistantDone, AssistantStarted, Error, TranscriptFinal
from pipeline.metrics import Counter, Gauge, Histogram, Registry, ServiceMetrics


def test_text_format_of_each_kind():
    registry = Registry()
    counter = registry.add(Counter("x_total", "Things.", ("code",)))
    counter.inc('a"b\\c\nd')
    counter.inc("plain", amount=2.5)
    registry.add(Gauge("x_now", "Now.", lambda: 3))
    histogram = registry.add(Histogram("x_seconds", "Time.", (0.1, 1.0)))
    for value in (0.05, 0.5, 0.5, 7.0):
        histogram.observe(value)
    assert registry.render() == (
        "# HELP x_total Things.\n# TYPE x_total counter\n"
        'x_total{code="a\\"b\\\\c\\nd"} 1\n'
        'x_total{code="plain"} 2.5\n'
        "# HELP x_now Now.\n# TYPE x_now gauge\nx_now 3\n"
        "# HELP x_seconds Time.\n# TYPE x_seconds histogram\n"
        'x_seconds_bucket{le="0.1"} 1\n'
        'x_seconds_bucket{le="1"} 3\n'
        'x_seconds_bucket{le="+Inf"} 4\n'
        "x_seconds_sum 8.05\n"
        "x_seconds_count 4\n"
    )


def test_service_metrics_from_events():
    metrics = ServiceMetrics(lambda: 2, lambda: {("viewer",): 5, ("publisher",): 2})
    arrivals = {3.0: 100.0}
    metrics.on_event(TranscriptFinal(text="hi", start=2.0, end=3.0, wall=100.8), arrivals.get)
    metrics.on_event(TranscriptFinal(text="unmapped", start=0.0, end=1.0, wall=100.9), arrivals.get)
    metrics.on_event(AssistantDone(generation=1, ttft_ms=250.0, tokens_per_s=80.0), arrivals.get)
    metrics.on_event(AssistantDone(generation=2, ttft_ms=1.0, cancelled=True), arrivals.get)
    metrics.on_event(Error(code="asr_failed", message="x"), arrivals.get)
    assert metrics.asr_latency.count == 1 and abs(metrics.asr_latency.sum - 0.8) < 1e-9
    assert (metrics.llm_ttft.count, metrics.llm_ttft.sum) == (1, 0.25)
    assert metrics.llm_rate.sum == 80.0
    text = metrics.render()
    assert 'streamtwin_errors_total{code="asr_failed"} 1' in text
    assert 'streamtwin_events_total{type="transcript.final"} 2' in text
    assert "streamtwin_sessions 2\n" in text
    assert 'streamtwin_clients{role="publisher"} 2\nstreamtwin_clients{role="viewer"} 5\n' in text


def test_the_twin_effort_announced_on_assistant_started_is_a_gauge():
    metrics = ServiceMetrics(lambda: 1, lambda: {})
    assert "streamtwin_twin_samples 0\n" in metrics.render()
    started = AssistantStarted(generation=3, trigger="final", twin_budget_s=1.0, twin_samples=4, twin_refine=2)
    metrics.on_event(started, lambda media_time: None)
    text = metrics.render()
    assert "streamtwin_twin_budget_seconds 1\n" in text
    assert "streamtwin_twin_samples 4\n" in text
    assert "streamtwin_twin_refine_rounds 2\n" in text
