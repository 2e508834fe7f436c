"""Every event type survives JSON and back; malformed objects are refused clearly."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from streamtwin.bus import EventBus
from streamtwin.events import (
    ENVELOPE_FIELDS,
    SCHEMA_VERSION,
    EventSchemaError,
    TranscriptFinal,
    event_types,
    from_dict,
    from_json,
)



def example(cls):
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in ENVELOPE_FIELDS or f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            continue
        kwargs[f.name] = {"str": "x", "int": 3, "float": 1.5}[f.type]
    return cls(**kwargs)


@pytest.mark.parametrize("name", sorted(event_types()))
def test_round_trip(name):
    cls = event_types()[name]
    bus = EventBus("s1", clock=lambda: 1234.5)
    event = bus.emit(example(cls))
    data = json.loads(event.to_json())
    assert data["v"] == SCHEMA_VERSION and data["type"] == name
    assert set(ENVELOPE_FIELDS) <= set(data)
    assert (data["session"], data["seq"], data["wall"]) == ("s1", 1, 1234.5)
    assert from_json(event.to_json()) == event


def test_fields_sit_at_top_level():
    data = TranscriptFinal(text="hello", start=1.2, end=3.4, media_time=3.4).to_dict()
    assert data["text"] == "hello" and data["start"] == 1.2 and data["end"] == 3.4 and data["media_time"] == 3.4


def test_bus_numbers_events_in_order_and_survives_a_broken_subscriber():
    bus = EventBus("s")
    seen = []
    bus.subscribe(lambda e: 1 / 0)
    unsubscribe = bus.subscribe(seen.append)
    bus.emit(TranscriptFinal(text="a", start=0, end=1))
    unsubscribe()
    bus.emit(TranscriptFinal(text="b", start=1, end=2))
    assert [e.seq for e in seen] == [1]


@pytest.mark.parametrize(
    "bad, message",
    [
        ("[1, 2]", "JSON object"),
        ('{"v": 99, "type": "error"}', "version"),
        ('{"v": 1, "type": "nope"}', "unknown event type"),
        ('{"v": 1, "type": "transcript.final", "text": "a"}', "transcript.final"),
        ('{"v": 1, "type": "error", "code": "x", "message": "m", "extra": 1}', "unknown fields"),
        ("{not json", "not JSON"),
    ],
)
def test_malformed_events_are_refused(bad, message):
    with pytest.raises(EventSchemaError, match=message):
        from_json(bad)
    if bad.startswith("{\"v\""):
        with pytest.raises(EventSchemaError):
            from_dict(json.loads(bad))


def test_what_only_pythons_json_reads_still_parses() -> None:
    """Lines are parsed with orjson first; what it refuses and json.dumps may have written (NaN, an integer past
    64 bits) is read as before, and nesting past orjson's own limit is still refused as too deep."""
    ended = from_json('{"v":1,"type":"session.ended","stats":{"rtf":NaN,"frames":123456789012345678901234567890}}')
    assert math.isnan(ended.stats["rtf"]) and ended.stats["frames"] == 123456789012345678901234567890
    with pytest.raises(EventSchemaError, match="deeper"):
        from_json("[" * 2000 + "]" * 2000)
