"""bench.sessions: the CPU split (each thread's time lands in its own share) and staggered publishers."""

from __future__ import annotations

import threading
import time

import streamtwin.media.publisher
import streamtwin.service.webrtc
from bench.sessions import CpuSplit, _publish_many


def burn(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_cpu_of_lasting_threads_the_loop_and_ended_threads_is_told_apart():
    go, done, stop = threading.Event(), threading.Event(), threading.Event()

    def lasting() -> None:  # like the engine's threads: there before the trial and after it
        go.wait()
        burn(0.3)
        done.set()
        stop.wait()

    engine = threading.Thread(target=lasting)
    engine.start()
    split = CpuSplit()
    go.set()
    burn(0.3)  # the event loop's thread
    session = threading.Thread(target=burn, args=(0.3,))  # a session's codec thread: gone by the end
    session.start()
    session.join()
    assert done.wait(10)
    spent = split.result()
    stop.set()
    engine.join()
    # Each 0.3 s in its own share, none counted twice (clock ticks of 10 ms, and the test's own overhead).
    assert 0.25 <= spent["engine_threads_s"] <= 0.45
    assert 0.25 <= spent["event_loop_s"] <= 0.45
    assert 0.2 <= spent["session_threads_s"] <= 0.45
    assert spent["server_s"] >= 0.85
    assert spent["publishers_s"] == 0.0


async def test_staggered_publishers_start_one_after_another(monkeypatch):
    started: list[float] = []

    class Publication:  # the real one needs a server; the start times are what is under test
        def __init__(self, *args, **kwargs):
            pass

        async def run(self) -> None:
            started.append(time.monotonic())

    class Player:
        audio = video = None

    class Conn:
        def send(self, value):
            self.sent = value

    monkeypatch.setattr(streamtwin.media.publisher, "Publication", Publication)
    monkeypatch.setattr(streamtwin.media.publisher, "open_player", lambda source: Player())
    monkeypatch.setattr(streamtwin.service.webrtc, "use_loopback_candidates", lambda: None)
    conn = Conn()
    await _publish_many("ws://127.0.0.1:1/ws", "clip.mp4", 3, conn, 0.2)
    assert len(conn.sent) == 3 and len(started) == 3
    assert started[1] - started[0] >= 0.19 and started[2] - started[0] >= 0.39
