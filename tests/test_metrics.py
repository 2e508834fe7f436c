"""The service's metrics: what events count, read back through the official Prometheus parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from streamtwin.events import AssistantDone, AssistantStarted, AssistantSwitched, Error, TranscriptFinal
from streamtwin.service.metrics import ServiceMetrics

# Every family the service exposes (process_* and python_info come from prometheus_client's collectors).
SERVICE_FAMILIES = {
    "streamtwin_sessions": "gauge",
    "streamtwin_clients": "gauge",
    "streamtwin_sessions_started": "counter",
    "streamtwin_events": "counter",
    "streamtwin_errors": "counter",
    "streamtwin_asr_commit_latency_seconds": "histogram",
    "streamtwin_asr_queue_depth": "gauge",
    "streamtwin_asr_decode_seconds": "histogram",
    "streamtwin_asr_batch_size": "histogram",
    "streamtwin_llm_ttft_seconds": "histogram",
    "streamtwin_llm_tokens_per_second": "histogram",
    "streamtwin_llm_generations": "counter",
    "streamtwin_llm_switches": "counter",
    "streamtwin_frames": "counter",
    "streamtwin_frames_dropped": "counter",
    "streamtwin_audio_gap_seconds": "counter",
    "streamtwin_delta_chars_dropped": "counter",
    "streamtwin_clients_dropped": "counter",
    "streamtwin_twin_budget_seconds": "gauge",
    "streamtwin_twin_samples": "gauge",
    "streamtwin_twin_refine_rounds": "gauge",
}


def families(metrics: ServiceMetrics) -> dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    """name -> {(sample name, sorted labels): value}, as the official parser reads the page."""
    parsed: dict[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]] = {}
    for family in text_string_to_metric_families(metrics.render()):
        samples = parsed.setdefault(family.name, {})
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return parsed


def test_every_family_parses_with_its_type_and_the_process_is_measured():
    metrics = ServiceMetrics(lambda: 0, dict)
    types = {family.name: family.type for family in text_string_to_metric_families(metrics.render())}
    for name, kind in SERVICE_FAMILIES.items():
        assert types.get(name) == kind, name
    for name in ("process_resident_memory_bytes", "process_open_fds", "process_cpu_seconds"):
        assert name in types, name
    assert metrics.sample("process_resident_memory_bytes") > 10e6


def test_service_metrics_from_events():
    metrics = ServiceMetrics(lambda: 2, lambda: {("viewer",): 5, ("publisher",): 2})
    arrivals = {3.0: 100.0}
    metrics.on_event(TranscriptFinal(text="hi", start=2.0, end=3.0, wall=100.8), arrivals.get)
    metrics.on_event(TranscriptFinal(text="unmapped", start=0.0, end=1.0, wall=100.9), arrivals.get)
    metrics.on_event(AssistantDone(generation=1, ttft_ms=250.0, tokens_per_s=80.0), arrivals.get)
    metrics.on_event(AssistantDone(generation=2, ttft_ms=1.0, cancelled=True), arrivals.get)
    metrics.on_event(Error(code="asr_failed", message="x"), arrivals.get)
    metrics.errors.labels('a"b\\c\nd').inc()  # the exposition escapes what the parser unescapes

    parsed = families(metrics)
    latency = parsed["streamtwin_asr_commit_latency_seconds"]
    assert latency[("streamtwin_asr_commit_latency_seconds_count", ())] == 1
    assert abs(latency[("streamtwin_asr_commit_latency_seconds_sum", ())] - 0.8) < 1e-9
    assert latency[("streamtwin_asr_commit_latency_seconds_bucket", (("le", "0.75"),))] == 0
    assert latency[("streamtwin_asr_commit_latency_seconds_bucket", (("le", "1.0"),))] == 1
    ttft = parsed["streamtwin_llm_ttft_seconds"]
    assert (ttft[("streamtwin_llm_ttft_seconds_count", ())], ttft[("streamtwin_llm_ttft_seconds_sum", ())]) == (1, 0.25)
    assert parsed["streamtwin_llm_tokens_per_second"][("streamtwin_llm_tokens_per_second_sum", ())] == 80.0
    errors = parsed["streamtwin_errors"]
    assert errors[("streamtwin_errors_total", (("code", "asr_failed"),))] == 1
    assert errors[("streamtwin_errors_total", (("code", 'a"b\\c\nd'),))] == 1
    assert parsed["streamtwin_events"][("streamtwin_events_total", (("type", "transcript.final"),))] == 2
    assert parsed["streamtwin_sessions"][("streamtwin_sessions", ())] == 2
    clients = parsed["streamtwin_clients"]
    assert clients[("streamtwin_clients", (("role", "publisher"),))] == 2
    assert clients[("streamtwin_clients", (("role", "viewer"),))] == 5
    assert metrics.sample("streamtwin_events_total", type="assistant.done") == 2


def test_the_twin_effort_announced_on_assistant_started_is_a_gauge():
    metrics = ServiceMetrics(lambda: 1, lambda: {})
    assert metrics.sample("streamtwin_twin_samples") == 0
    started = AssistantStarted(generation=3, trigger="final", twin_budget_s=1.0, twin_samples=4, twin_refine=2)
    metrics.on_event(started, lambda media_time: None)
    assert metrics.sample("streamtwin_twin_budget_seconds") == 1
    assert metrics.sample("streamtwin_twin_samples") == 4
    assert metrics.sample("streamtwin_twin_refine_rounds") == 2


def test_who_answered_and_mid_stream_switches_are_counted():
    metrics = ServiceMetrics(lambda: 1, lambda: {})
    no_media = lambda media_time: None  # noqa: E731
    metrics.on_event(AssistantStarted(generation=1, trigger="final", backend="groq"), no_media)
    metrics.on_event(AssistantStarted(generation=2, trigger="final", backend="openai", route="race"), no_media)
    metrics.on_event(AssistantStarted(generation=3, trigger="final", backend="openai", route="race"), no_media)
    metrics.on_event(AssistantSwitched(generation=3, backend="local", previous="openai"), no_media)
    assert metrics.sample("streamtwin_llm_generations_total", backend="groq", route="single") == 1
    assert metrics.sample("streamtwin_llm_generations_total", backend="openai", route="race") == 2
    assert metrics.sample("streamtwin_llm_switches_total", backend="local") == 1


def test_what_the_server_holds_is_read_only_when_scraped():
    server: dict[str, float] = {}  # like a server whose sessions do not exist yet while it builds its metrics
    metrics = ServiceMetrics(lambda: server["sessions"], lambda: {("viewer",): server["viewers"]})
    server.update(sessions=3, viewers=7)
    assert metrics.sample("streamtwin_sessions") == 3
    assert metrics.sample("streamtwin_clients", role="viewer") == 7


def test_registries_of_two_servers_do_not_share_series():
    first, second = ServiceMetrics(lambda: 0, dict), ServiceMetrics(lambda: 0, dict)
    first.sessions_total.inc()
    name = "streamtwin_sessions_started_total"
    assert (first.sample(name), second.sample(name)) == (1, 0)
