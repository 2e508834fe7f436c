"""Counters, gauges and histograms rendered in the Prometheus text format (0.0.4).

A few dozen lines do what the server needs, so there is no client library to
install: metrics are plain objects updated inline (an increment is a dict
update) and rendered on ``GET /metrics``.  :class:`ServiceMetrics` names the
service's metrics and turns pipeline events into observations.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TypeVar

from .events import AssistantDone, AssistantStarted, Error, Event, TranscriptFinal

LabelValues = tuple[str, ...]

LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0)
RATE_BUCKETS = (5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0)


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(names: Iterable[str], values: Iterable[str], extra: str = "") -> str:
    parts = [f'{name}="{_escape(value)}"' for name, value in zip(names, values)]
    if extra:
        parts.append(extra)
    return "{" + ",".join(parts) + "}" if parts else ""


class _Metric:
    kind = ""

    def __init__(self, name: str, help_text: str, labels: tuple[str, ...] = ()):
        self.name = name
        self.help = help_text
        self.label_names = labels

    def _check(self, values: LabelValues) -> None:
        if len(values) != len(self.label_names):
            raise ValueError(f"{self.name} takes labels {self.label_names}, got {values}")

    def samples(self) -> list[str]:
        raise NotImplementedError

    def render(self) -> str:
        head = f"# HELP {self.name} {self.help}\n# TYPE {self.name} {self.kind}\n"
        return head + "".join(line + "\n" for line in self.samples())


class Counter(_Metric):
    kind = "counter"

    def __init__(self, name: str, help_text: str, labels: tuple[str, ...] = ()):
        super().__init__(name, help_text, labels)
        self._values: dict[LabelValues, float] = {} if labels else {(): 0.0}

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        self._check(labels)
        self._values[labels] = self._values.get(labels, 0.0) + amount

    def value(self, *labels: str) -> float:
        return self._values.get(labels, 0.0)

    def samples(self) -> list[str]:
        return [f"{self.name}{_labels(self.label_names, k)} {_number(v)}" for k, v in sorted(self._values.items())]


class Gauge(_Metric):
    """A value read when rendered: ``read`` returns it (per label values when labelled)."""

    kind = "gauge"

    def __init__(
        self,
        name: str,
        help_text: str,
        read: Callable[[], float | dict[LabelValues, float]],
        labels: tuple[str, ...] = (),
    ):
        super().__init__(name, help_text, labels)
        self._read = read

    def samples(self) -> list[str]:
        value = self._read()
        values = value if isinstance(value, dict) else {(): value}
        return [f"{self.name}{_labels(self.label_names, k)} {_number(v)}" for k, v in sorted(values.items())]


class Histogram(_Metric):
    kind = "histogram"

    def __init__(self, name: str, help_text: str, buckets: tuple[float, ...]):
        super().__init__(name, help_text)
        self.buckets = tuple(sorted(buckets)) + (math.inf,)
        self._counts = [0] * len(self.buckets)
        self.count = 0
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.count += 1
        self.sum += value
        for i, bound in enumerate(self.buckets):
            if value <= bound:
                self._counts[i] += 1
                break

    def samples(self) -> list[str]:
        lines = []
        running = 0
        for bound, count in zip(self.buckets, self._counts):
            running += count
            lines.append(f'{self.name}_bucket{{le="{_number(bound)}"}} {running}')
        lines.append(f"{self.name}_sum {_number(self.sum)}")
        lines.append(f"{self.name}_count {self.count}")
        return lines


M = TypeVar("M", bound=_Metric)


class Registry:
    def __init__(self) -> None:
        self._metrics: list[_Metric] = []

    def add(self, metric: M) -> M:
        if any(m.name == metric.name for m in self._metrics):
            raise ValueError(f"metric {metric.name} registered twice")
        self._metrics.append(metric)
        return metric

    def render(self) -> str:
        return "".join(metric.render() for metric in self._metrics)


class ServiceMetrics:
    """The live service's metrics; ``sessions`` and ``clients`` are read from the server when rendered."""

    def __init__(
        self,
        sessions: Callable[[], float],
        clients: Callable[[], dict[LabelValues, float]],
    ) -> None:
        self.registry = Registry()
        add = self.registry.add
        add(Gauge("streamtwin_sessions", "Sessions running now.", sessions))
        add(Gauge("streamtwin_clients", "Websocket clients joined to a session now.", clients, ("role",)))
        self.sessions_total = add(Counter("streamtwin_sessions_started_total", "Sessions started."))
        self.events = add(Counter("streamtwin_events_total", "Pipeline events emitted.", ("type",)))
        self.errors = add(
            Counter("streamtwin_errors_total", "Errors: pipeline error events and refused client messages.",
                    ("code",))
        )
        self.asr_latency = add(
            Histogram(
                "streamtwin_asr_commit_latency_seconds",
                "From the moment the end of a committed utterance arrived to its transcript.final.",
                LATENCY_BUCKETS,
            )
        )
        self.llm_ttft = add(
            Histogram("streamtwin_llm_ttft_seconds", "LLM time to first token (completed generations).",
                      LATENCY_BUCKETS)
        )
        self.llm_rate = add(
            Histogram("streamtwin_llm_tokens_per_second", "LLM generation speed (completed generations).",
                      RATE_BUCKETS)
        )
        # The speech engine is process-wide; its figures are read from it (imported here, not at the top:
        # the engine module itself uses this module's Histogram).
        from .engine import ENGINE_METRICS

        add(Gauge("streamtwin_asr_queue_depth", "Speech streams waiting for a decode.", ENGINE_METRICS.queue_depth))
        add(ENGINE_METRICS.decode_seconds)
        add(ENGINE_METRICS.batch_size)
        self.frames = add(Counter("streamtwin_frames_total", "Media frames received over WebRTC.", ("kind",)))
        self.frames_dropped = add(
            Counter("streamtwin_frames_dropped_total", "Video frames skipped because they arrived too late.")
        )
        self.delta_chars_dropped = add(
            Counter("streamtwin_delta_chars_dropped_total", "Assistant text dropped for clients too slow to read it.")
        )
        self.clients_dropped = add(
            Counter("streamtwin_clients_dropped_total", "Clients disconnected because they could not keep up.")
        )
        # What a twin update affords, as the latest assistant.started said (chosen from measured speed).
        self._twin_effort: dict[str, float] = {"budget_s": 0.0, "samples": 0.0, "refine": 0.0}
        add(Gauge("streamtwin_twin_budget_seconds", "Latency budget of a twin update.",
                  lambda: self._twin_effort["budget_s"]))
        add(Gauge("streamtwin_twin_samples", "Candidates a twin update drafts now (best-of-N).",
                  lambda: self._twin_effort["samples"]))
        add(Gauge("streamtwin_twin_refine_rounds", "Critique-and-revise rounds a twin update may run now.",
                  lambda: self._twin_effort["refine"]))

    def on_event(self, event: Event, media_wall: Callable[[float], float | None]) -> None:
        """Count one pipeline event; ``media_wall`` maps media seconds to the wall time they arrived."""
        self.events.inc(event.type)
        if isinstance(event, TranscriptFinal):
            arrived = media_wall(event.end)
            if arrived is not None:
                self.asr_latency.observe(max(0.0, event.wall - arrived))
        elif isinstance(event, AssistantStarted):
            self._twin_effort = {
                "budget_s": event.twin_budget_s, "samples": event.twin_samples, "refine": event.twin_refine
            }
        elif isinstance(event, AssistantDone) and not event.cancelled:
            if event.ttft_ms is not None:
                self.llm_ttft.observe(event.ttft_ms / 1000)
            if event.tokens_per_s is not None:
                self.llm_rate.observe(event.tokens_per_s)
        elif isinstance(event, Error):
            self.errors.inc(event.code)

    def render(self) -> str:
        return self.registry.render()
