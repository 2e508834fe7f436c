"""The resume policy: exactly the events after the viewer's seq, whatever order backlog and live arrive in."""

from __future__ import annotations

import random
from dataclasses import dataclass

from streamtwin.eventlog.resume import Gap, ResumeFeed, Step, step


@dataclass(frozen=True)
class E:
    seq: int
    prev: int


def chain(seqs: list[int]) -> list[E]:
    return [E(seq, prev) for prev, seq in zip([0, *seqs], seqs)]


def delivered(out: list[E]) -> list[int]:
    return [entry.seq for entry in out]


def test_step_tells_deliver_duplicate_and_gap() -> None:
    assert step(5, E(7, 5)) is Step.DELIVER
    assert step(5, E(7, 6)) is Step.GAP  # seq 6 was logged and the viewer never got it
    assert step(5, E(5, 3)) is Step.DUPLICATE
    assert step(6, E(9, 4)) is Step.DELIVER  # non-contiguous seqs (merged deltas) are not a gap


def test_backlog_then_live_without_gap_or_duplicate() -> None:
    log = chain([1, 2, 4, 7, 8, 9, 12])
    feed = ResumeFeed(4)
    assert feed.needs_backlog
    # The session goes on while the backlog is read: live 8, 9, 12 arrive before the backlog.
    out = feed.live(log[4]) + feed.live(log[5]) + feed.live(log[6])
    assert out == []
    out += feed.backlog(log[3:5])  # the log lags: it holds up to 8 so far
    assert delivered(out) == [7, 8, 9, 12] and not feed.needs_backlog and feed.gap is None
    assert delivered(feed.live(E(13, 12))) == [13]
    assert feed.live(E(13, 12)) == []  # twice: once only


def test_a_trimmed_log_is_a_gap_and_restart_goes_on_after_the_snapshot() -> None:
    log = chain(list(range(1, 101)))
    feed = ResumeFeed(10)
    assert feed.backlog(log[50:]) == []  # the log kept 51..100: 11..50 are gone
    assert feed.gap == Gap(10, 51) and "seq 10" in feed.gap.message
    assert feed.live(E(101, 100)) == [] and not feed.needs_backlog
    feed.restart(100)  # the snapshot is as of seq 100
    assert feed.needs_backlog and feed.backlog([]) == []
    assert delivered(feed.live(E(101, 100))) == [101]


def test_a_viewer_ahead_of_the_log_waits_for_it() -> None:
    feed = ResumeFeed(30)  # it saw 30 live on another node; this log has only reached 20
    assert feed.backlog(chain(list(range(1, 21)))[20:]) == []
    assert feed.live(E(30, 29)) == [] and feed.gap is None
    assert delivered(feed.live(E(31, 30))) == [31]


def test_random_interleavings_deliver_exactly_the_tail() -> None:
    rng = random.Random(7)
    for _ in range(300):
        seqs = sorted(rng.sample(range(1, 400), 60))
        log = chain(seqs)
        start = rng.choice([0, *seqs[:40]])
        feed = ResumeFeed(start)
        lag = rng.randrange(len(log))  # the log has this many entries when the viewer reads it
        live_from = rng.randrange(lag + 1)  # the viewer's live subscription started here
        out = [*sum((feed.live(e) for e in log[live_from:lag]), [])]
        while feed.needs_backlog:  # pages of a few entries, as read_after(limit) returns them
            held = [e for e in log[:lag] if e.seq > feed.cursor]
            page = rng.randint(1, 10)
            out += feed.backlog(held[:page], complete=len(held) <= page)
            if len(held) <= page:
                break
        for e in log[lag:]:
            out += feed.live(e)
        assert delivered(out) == [s for s in seqs if s > start]


def test_held_live_entries_are_bounded() -> None:
    feed = ResumeFeed(0, max_held=5)
    for e in chain(list(range(1, 20))):
        feed.live(e)
    assert feed.needs_backlog  # whatever was let go is read from the log again
    assert delivered(feed.backlog(chain(list(range(1, 20))))) == list(range(1, 20))
