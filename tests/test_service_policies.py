"""Admission and access policies: plain classes and functions, no sockets."""

from __future__ import annotations

import re

import pytest

from streamtwin.service.access import allowed_origins, check_bind, host_allowed, is_loopback, new_secret, tokens_match
from streamtwin.service.admission import Admission, Limits
from streamtwin.speech.capacity import BusyMeter


def test_connection_caps_per_address_and_in_all():
    admission = Admission(Limits(max_connections=3, max_connections_per_address=2))
    assert admission.admit_connection("a") is None
    assert admission.admit_connection("a") is None
    assert admission.admit_connection("a").code == "too_many_connections"
    assert admission.admit_connection("b") is None
    assert admission.admit_connection("c").code == "busy"
    admission.release_connection("a")
    assert admission.admit_connection("c") is None
    for address in "abcabc":
        admission.release_connection(address)
    admission.release_connection("never-admitted")
    assert admission.connections == {}


def test_session_caps():
    admission = Admission(Limits(max_sessions=2, max_sessions_per_address=1))
    assert admission.admit_session("a") is None
    assert admission.admit_session("a").code == "too_many_sessions"
    assert admission.admit_session("b") is None
    assert admission.admit_session("c").code == "busy"
    admission.release_session("a")
    assert admission.admit_session("c") is None


def test_auth_failures_lock_an_address_out_for_the_window():
    admission = Admission(Limits(auth_failures=3, auth_window_s=60))
    for t in (0, 1, 2):
        assert not admission.locked_out("a", t)
        admission.auth_failed("a", t)
    assert admission.locked_out("a", 3) and not admission.locked_out("b", 3)
    assert admission.admit_connection("a") is None  # it still connects: a session's own token gets it in
    assert not admission.locked_out("a", 61)  # the first failure left the window
    assert not admission.locked_out("a", 63) and admission._failures == {}  # forgotten entirely


def test_hosts_names_must_be_ours():
    for host in ("127.0.0.1:8080", "localhost:8080", "[::1]:8080", "192.168.1.20:8080", "LOCALHOST", "10.0.0.1"):
        assert host_allowed(host, []), host
    for host in ("evil.example:8080", "127.0.0.1.nip.io:8080", "", None, "localhost.evil.example"):
        assert not host_allowed(host, []), host
    assert host_allowed("meet.example.org:443", ["meet.example.org"])


def test_origins_are_this_server_on_this_port_or_listed():
    origins = allowed_origins(8080, [], ["https://app.example"])
    assert origins[0] is None and "https://app.example" in origins
    pattern = origins[1]
    assert isinstance(pattern, re.Pattern)
    for good in ("http://127.0.0.1:8080", "http://localhost:8080", "https://[::1]:8080", "http://10.1.2.3:8080"):
        assert pattern.fullmatch(good), good
    for bad in ("http://evil.example:8080", "http://127.0.0.1:9090", "http://127.0.0.1", "null"):
        assert not pattern.fullmatch(bad), bad
    assert allowed_origins(8080, [], ["*"]) is None
    assert allowed_origins(443, [], [])[1].fullmatch("https://10.0.0.1")


def test_a_public_bind_needs_a_token():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.0.0.2")
    assert not is_loopback("0.0.0.0") and not is_loopback("::") and not is_loopback("192.168.1.2")
    assert check_bind("127.0.0.1", "") is None
    assert "token" in check_bind("0.0.0.0", "")
    assert check_bind("0.0.0.0", "s3cret") is None


def test_secrets_are_unguessable_and_compared_safely():
    secrets = {new_secret() for _ in range(100)}
    assert len(secrets) == 100 and all(len(s) >= 22 for s in secrets)
    assert tokens_match("abc", "abc") and not tokens_match("abd", "abc") and not tokens_match("", "")


def test_credentials_are_redacted_from_urls():
    from streamtwin.media.redact import redact

    assert redact("rtsp://admin:hunter2@cam.local:554/live") == "rtsp://cam.local:554/live"
    assert redact("cannot reach rtsp://u@h/x: refused") == "cannot reach rtsp://h/x: refused"
    assert redact("ws://h:8080/ws?token=s3cret&x=1") == "ws://h:8080/ws?token=***&x=1"
    assert redact("http://h/?a=1&api_key=k#f") == "http://h/?a=1&api_key=***#f"
    assert redact("samples/meeting.mp4") == "samples/meeting.mp4"
    assert redact("email me@example.org") == "email me@example.org"


def test_liveness_timeouts_and_the_resume_grace():
    from streamtwin.service.liveness import Liveness, Timeouts

    t = Timeouts(offer_s=5, first_media_s=4, idle_media_s=3, resume_grace_s=2)
    live = Liveness(t, now=0)
    assert live.verdict(5) is None and live.verdict(5.1)[0] == "offer_timeout"
    live.answered(5)
    assert live.verdict(9) is None and live.verdict(9.1)[0] == "no_media"
    live.media(9)
    assert live.verdict(12) is None and live.verdict(12.1)[0] == "media_timeout"
    live.media(12)
    live.publisher_left(12)
    live.media(13.5)
    assert live.away and live.verdict(14) is None and live.verdict(14.1)[0] == "publisher_left"
    live.publisher_back()
    assert live.verdict(14.1) is None
    live.media_lost(14.5)
    assert live.verdict(16.5) is None and live.verdict(16.6)[0] == "media_failed"
    live.answered(16)
    assert live.verdict(19) is None


def test_rtp_timestamps_keep_gaps_and_ignore_overlaps():
    from streamtwin.media.mediatime import RTP_WRAP, AudioTimeline

    timeline = AudioTimeline(max_gap_s=10.0)
    assert timeline.gap(1000, 960, 48000) == 0.0
    assert timeline.gap(1960, 960, 48000) == 0.0  # follows on
    assert timeline.gap(2920 + 48000, 960, 48000) == 1.0  # one second of packets lost
    assert timeline.gap(2920, 960, 48000) == 0.0  # a late duplicate adds nothing
    assert timeline.gap(None, 960, 48000) == 0.0
    assert timeline.gap(2920 + 48000 + 960 + 48000 * 3600, 960, 48000) == 10.0  # capped
    wrap = AudioTimeline(max_gap_s=10.0, lead_in_s=2.5)
    assert wrap.gap(RTP_WRAP - 960, 960, 48000) == 2.5  # the lead-in: the time the media was away
    assert wrap.gap(0, 960, 48000) == 0.0  # across the 32-bit wrap
    assert wrap.gap(960 + 4800, 960, 48000) == 0.1


def test_the_busy_meter_keeps_the_busiest_recent_bucket():
    meter = BusyMeter(workers=2, bucket_s=10.0, horizon_buckets=6)
    assert meter.peak(0.0) == 0.0
    meter.add(0.0, 9.0)  # one worker busy 9 s of the first 10
    meter.add(5.0, 15.0)  # the other one across the bucket edge: 5 s in each
    assert meter.peak(12.0) == pytest.approx((9 + 5) / 20)
    meter.add(20.0, 21.0)
    assert meter.peak(25.0) == pytest.approx(0.7)  # a quiet moment does not hide the last minute's peak
    assert meter.peak(75.0) == pytest.approx(0.05)  # the first buckets left the horizon
    assert meter.peak(200.0) == 0.0


def test_a_session_is_refused_when_speech_would_fall_behind():
    load = 0.5
    admission = Admission(Limits(max_sessions=8, max_sessions_per_address=8), speech_load=lambda: load)
    assert admission.admit_session("a") is None  # the first session is always heard
    verdict = admission.admit_session("b")  # one session takes half the engine: two would take all of it
    assert verdict is not None and verdict.code == "busy" and "50%" in verdict.message
    load = 0.2
    assert admission.admit_session("b") is None
    assert admission.admit_session("c") is None  # 0.2 for 2 -> 0.3 for 3
    load = 0.7
    assert admission.admit_session("d").code == "busy"  # 0.7 for 3 -> 0.93 for 4
    load = 0.6
    assert admission.admit_session("d") is None  # 0.6 for 3 -> 0.8 for 4
    off = Admission(Limits(max_sessions=8, max_sessions_per_address=8, max_speech_load=0), speech_load=lambda: 1.0)
    assert off.admit_session("a") is None and off.admit_session("a") is None
    assert off.admit_participant() is None


def test_a_participant_joins_a_room_while_speech_keeps_up():
    """People in a room take turns: a joiner adds little to decode, so it is refused only when the engine
    already passes its limit; the sessions' counts do not apply (the room holds one)."""
    load = 0.84
    admission = Admission(Limits(max_sessions=1, max_sessions_per_address=1), speech_load=lambda: load)
    assert admission.admit_session("a") is None
    assert admission.admit_participant() is None and admission.admit_participant() is None
    load = 0.9
    verdict = admission.admit_participant()
    assert verdict.code == "busy" and "90%" in verdict.message and "85%" in verdict.message
    assert sum(admission.sessions.values()) == 1
