"""The service's Prometheus metrics, on the official ``prometheus_client``.

Each :class:`ServiceMetrics` owns a :class:`~prometheus_client.CollectorRegistry`
(several servers in one process, as the tests run them, never share a series) with
the process collector (resident memory, open descriptors, CPU seconds) and the
platform collector beside the service's own families.  Values the server holds
anyway (sessions, clients, the speech engine's queue) are read when ``/metrics``
is scraped, by a collector, rather than kept twice.  :meth:`ServiceMetrics.on_event`
turns pipeline events into observations.

Several server processes behind one port (prometheus_client's multiprocess mode) are
not wired: each process serves its own ``/metrics``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from streamtwin.events import AssistantDone, AssistantStarted, AssistantSwitched, Error, Event, TranscriptFinal

LabelValues = tuple[str, ...]

LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0)
RATE_BUCKETS = (5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0)


class _ReadAtScrape(Collector):
    """Gauges whose values live elsewhere (the server's sessions and clients, the speech engines)."""

    def __init__(
        self,
        sessions: Callable[[], float],
        clients: Callable[[], dict[LabelValues, float]],
        queue_depth: Callable[[], float],
        events_lost: Callable[[], float],
    ) -> None:
        self._sessions = sessions
        self._clients = clients
        self._queue_depth = queue_depth
        self._events_lost = events_lost

    def describe(self) -> Iterator[Metric]:
        """The families without values: the registry asks before the server can answer (it is being built)."""
        return self._families(read=False)

    def collect(self) -> Iterator[Metric]:
        return self._families(read=True)

    def _families(self, read: bool) -> Iterator[Metric]:
        sessions = GaugeMetricFamily("streamtwin_sessions", "Sessions running now.")
        clients = GaugeMetricFamily(
            "streamtwin_clients", "Websocket clients joined to a session now.", labels=("role",)
        )
        queue = GaugeMetricFamily("streamtwin_asr_queue_depth", "Speech streams waiting for a decode.")
        lost = CounterMetricFamily(
            "streamtwin_events_lost",
            "Events this node could not store in the event log (refused by the store, or dropped from a full "
            "buffer while it was unavailable): viewers who join or resume later miss them.",
        )
        if read:
            sessions.add_metric((), self._sessions())
            for labels, value in sorted(self._clients().items()):
                clients.add_metric(labels, value)
            queue.add_metric((), self._queue_depth())
            lost.add_metric((), self._events_lost())
        yield from (sessions, clients, queue, lost)


class ServiceMetrics:
    """The live service's metrics; ``sessions``, ``clients`` and ``events_lost`` are read from the server when
    scraped."""

    def __init__(
        self,
        sessions: Callable[[], float],
        clients: Callable[[], dict[LabelValues, float]],
        events_lost: Callable[[], float] = lambda: 0.0,
    ) -> None:
        # The speech engine is process-wide; its histograms join every server's registry (imported
        # here, not at the top: importing the engine loads the speech stack).
        from streamtwin.speech.engine import ENGINE_METRICS

        self.registry = registry = CollectorRegistry(auto_describe=True)
        ProcessCollector(registry=registry)
        PlatformCollector(registry=registry)
        registry.register(_ReadAtScrape(sessions, clients, ENGINE_METRICS.queue_depth, events_lost))
        registry.register(ENGINE_METRICS.decode_seconds)
        registry.register(ENGINE_METRICS.batch_size)
        self.sessions_total = Counter("streamtwin_sessions_started", "Sessions started.", registry=registry)
        self.events = Counter("streamtwin_events", "Pipeline events emitted.", ("type",), registry=registry)
        self.errors = Counter(
            "streamtwin_errors", "Errors: pipeline error events and refused client messages.", ("code",),
            registry=registry,
        )
        self.asr_latency = Histogram(
            "streamtwin_asr_commit_latency_seconds",
            "From the moment the end of a committed utterance arrived to its transcript.final.",
            buckets=LATENCY_BUCKETS, registry=registry,
        )
        self.llm_ttft = Histogram(
            "streamtwin_llm_ttft_seconds", "LLM time to first token (completed generations).",
            buckets=LATENCY_BUCKETS, registry=registry,
        )
        self.llm_rate = Histogram(
            "streamtwin_llm_tokens_per_second", "LLM generation speed (completed generations).",
            buckets=RATE_BUCKETS, registry=registry,
        )
        self.llm_answers = Counter(
            "streamtwin_llm_generations",
            "Generations by the backend that answered and how it came to (single, primary, race, fallback).",
            ("backend", "route"), registry=registry,
        )
        self.llm_switches = Counter(
            "streamtwin_llm_switches",
            "Generations taken over mid-stream by another backend (failover after the first token).",
            ("backend",), registry=registry,
        )
        self.frames = Counter("streamtwin_frames", "Media frames received over WebRTC.", ("kind",), registry=registry)
        self.audio_gaps = Counter(
            "streamtwin_audio_gap_seconds",
            "Audio missing from WebRTC publishers (packets lost, a track away), filled with silence so that media "
            "time stays the sender's.",
            registry=registry,
        )
        self.frames_dropped = Counter(
            "streamtwin_frames_dropped", "Video frames skipped because they arrived too late.", registry=registry
        )
        self.delta_chars_dropped = Counter(
            "streamtwin_delta_chars_dropped", "Assistant text dropped for clients too slow to read it.",
            registry=registry,
        )
        self.clients_dropped = Counter(
            "streamtwin_clients_dropped", "Clients disconnected because they could not keep up.", registry=registry
        )
        # What a twin update affords, as the latest assistant.started said (chosen from measured speed).
        self.twin_budget = Gauge(
            "streamtwin_twin_budget_seconds", "Latency budget of a twin update.", registry=registry
        )
        self.twin_samples = Gauge(
            "streamtwin_twin_samples", "Candidates a twin update drafts now (best-of-N).", registry=registry
        )
        self.twin_refine = Gauge(
            "streamtwin_twin_refine_rounds", "Critique-and-revise rounds a twin update may run now.",
            registry=registry,
        )

    def on_event(self, event: Event, media_wall: Callable[[float], float | None]) -> None:
        """Count one pipeline event; ``media_wall`` maps media seconds to the wall time they arrived."""
        self.events.labels(event.type).inc()
        if isinstance(event, TranscriptFinal):
            arrived = media_wall(event.end)
            if arrived is not None:
                self.asr_latency.observe(max(0.0, event.wall - arrived))
        elif isinstance(event, AssistantStarted):
            self.twin_budget.set(event.twin_budget_s)
            self.twin_samples.set(event.twin_samples)
            self.twin_refine.set(event.twin_refine)
            self.llm_answers.labels(event.backend or "none", event.route or "single").inc()
        elif isinstance(event, AssistantSwitched):
            self.llm_switches.labels(event.backend).inc()
        elif isinstance(event, AssistantDone) and not event.cancelled:
            if event.ttft_ms is not None:
                self.llm_ttft.observe(event.ttft_ms / 1000)
            if event.tokens_per_s is not None:
                self.llm_rate.observe(event.tokens_per_s)
        elif isinstance(event, Error):
            self.errors.labels(event.code).inc()

    def sample(self, name: str, **labels: str) -> float:
        """One sample's current value (0 if it was never set), e.g. ``sample("streamtwin_events_total", type=...)``."""
        return self.registry.get_sample_value(name, labels) or 0.0

    def render(self) -> str:
        """The Prometheus text format (0.0.4) of everything in this registry."""
        return generate_latest(self.registry).decode()
