"""The webhook queue and retry policy (streamtwin/webhooks/delivery.py) and its bodies and signature
(streamtwin/webhooks/payloads.py): no sockets, the time passed in."""

from __future__ import annotations

import json

import pytest

from streamtwin.webhooks.delivery import Delivery, DeliveryQueue, retry_after_seconds
from streamtwin.webhooks.payloads import check_url, ended_body, headers, parse_events, sign, verify


def delivery(name: str, created: float = 0.0, size: int = 10) -> Delivery:
    return Delivery(name, "ended", b"x" * size, created)


def test_in_order_one_at_a_time() -> None:
    queue = DeliveryQueue()
    queue.offer(delivery("a"))
    queue.offer(delivery("b"))
    first = queue.due(0.0)
    assert first is not None and first.id == "a"
    assert queue.due(0.0) is None  # one in flight per receiver
    queue.succeeded(0.1)
    second = queue.due(0.1)
    assert second is not None and second.id == "b"


def test_backoff_doubles_up_to_the_cap_and_a_success_resets_it() -> None:
    queue = DeliveryQueue(backoff_base_s=1.0, backoff_cap_s=8.0)
    queue.offer(delivery("a"))
    now, waits = 0.0, []
    for _ in range(6):
        assert queue.due(now) is not None
        assert queue.failed(now) == "retry"
        deadline = queue.next_deadline()
        assert deadline is not None
        assert queue.due(deadline - 0.01) is None
        waits.append(deadline - now)
        now = deadline
    assert waits == [1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert queue.due(now) is not None
    queue.succeeded(now)
    queue.offer(delivery("b", now))
    assert queue.due(now) is not None  # no backoff left after a success
    queue.failed(now)
    assert queue.next_deadline() == now + 1.0


def test_a_receiver_down_for_under_max_age_loses_nothing() -> None:
    """Down 9 minutes 50 s with a delivery queued every 10 s: all of them arrive, in order, when it is back."""
    queue = DeliveryQueue(max_age_s=600.0, backoff_cap_s=30.0)
    now, made, arrived = 0.0, 0, []
    while now < 700.0:
        if now < 590.0 and now >= made * 10.0:
            queue.offer(delivery(str(made), now))
            made += 1
        attempt = queue.due(now)
        if attempt is not None:
            if now < 590.0:  # the receiver is down
                assert queue.failed(now) == "retry"
            else:
                queue.succeeded(now)
                arrived.append(attempt.id)
        now = round(now + 0.5, 3)
    assert arrived == [str(n) for n in range(made)]
    assert queue.counts.expired == 0 and queue.counts.dropped == 0


def test_given_up_only_after_a_failed_attempt_past_max_age() -> None:
    queue = DeliveryQueue(max_age_s=600.0, backoff_cap_s=30.0)
    queue.offer(delivery("old", 0.0))
    queue.offer(delivery("young", 500.0))
    assert queue.due(0.0) is not None
    assert queue.failed(599.0) == "retry"  # not old enough
    assert queue.due(629.0) is not None
    assert queue.failed(629.0) == "expired"
    assert len(queue) == 1 and queue.counts.expired == 1
    head = queue.due(queue.next_deadline() or 0.0)
    assert head is not None and head.id == "young"


def test_bounded_by_count_and_bytes_the_oldest_dropped_never_the_one_in_flight() -> None:
    queue = DeliveryQueue(max_items=3, max_bytes=1000)
    for name in "abc":
        queue.offer(delivery(name))
    in_flight = queue.due(0.0)
    assert in_flight is not None and in_flight.id == "a"
    assert queue.offer(delivery("d")) == 1  # b goes, a is in flight
    queue.succeeded(0.0)
    assert [queue.due(0.0).id, queue.succeeded(0.0)][0] == "c"  # type: ignore[union-attr]
    assert queue.offer(delivery("big", size=995)) == 1  # d goes: 10 + 995 > 1000
    assert queue.waiting_bytes == 995 and queue.counts.dropped == 2


def test_a_4xx_is_rejected_and_the_next_goes_at_once_but_429_is_retried() -> None:
    queue = DeliveryQueue()
    queue.offer(delivery("a"))
    queue.offer(delivery("b"))
    queue.due(0.0)
    assert queue.failed(0.0, status=400) == "rejected"
    queue.due(0.0)
    assert queue.failed(0.0, status=429, retry_after=20.0) == "retry"
    assert queue.next_deadline() == 20.0
    assert queue.counts.rejected == 1 and len(queue) == 1


def test_reporting_an_outcome_without_an_attempt_is_a_bug() -> None:
    with pytest.raises(RuntimeError):
        DeliveryQueue().succeeded(0.0)


@pytest.mark.parametrize("value, seconds", [("7", 7.0), ("0.5", 0.5), ("", None), (None, None), ("soon", None),
                                            ("-3", None)])
def test_retry_after(value: str | None, seconds: float | None) -> None:
    assert retry_after_seconds(value) == seconds


@pytest.mark.parametrize("url", ["ftp://example.com/x", "example.com/hook", "http://", "https://host:99999/x",
                                 "file:///etc/passwd", "javascript:alert(1)"])
def test_a_webhook_url_must_be_http_with_a_host(url: str) -> None:
    with pytest.raises(ValueError, match="--webhook"):
        check_url(url)


def test_good_urls_and_events() -> None:
    assert check_url(" https://hooks.example.com:8443/in?x=1 ") == "https://hooks.example.com:8443/in?x=1"
    assert parse_events(["twin", " ENDED"]) == {"twin", "ended"}
    with pytest.raises(ValueError, match="unknown started"):
        parse_events(["started"])
    with pytest.raises(ValueError, match="at least one"):
        parse_events([])


def test_the_signature_is_hmac_sha256_of_the_exact_body() -> None:
    body = ended_body("d1", 1.5, "s1", "# Meeting notes\n", {"summary": "ok"}, {"audio_s": 3})
    sent = headers("ended", "d1", body, "s3cret")
    assert sent["X-Streamtwin-Delivery"] == "d1" and sent["X-Streamtwin-Event"] == "ended"
    # The digest of HMAC-SHA256 as RFC 4231 test case 2 gives it: the standard construction, not a look-alike.
    assert sign("Jefe", b"what do ya want for nothing?") == (
        "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )
    assert verify("s3cret", body, sent["X-Streamtwin-Signature"])
    assert not verify("s3cret", body + b" ", sent["X-Streamtwin-Signature"])
    assert not verify("other", body, sent["X-Streamtwin-Signature"])
    assert "X-Streamtwin-Signature" not in headers("ended", "d1", body, "")
    assert json.loads(body)["notes_markdown"] == "# Meeting notes\n"
