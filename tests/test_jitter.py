"""The audio reorder buffer, without sockets: what comes out, in what order, and how late."""

from __future__ import annotations

import random
from dataclasses import dataclass

from streamtwin.media.jitter import SEQ_WRAP, AudioReorder


@dataclass
class Packet:
    sequence_number: int


def play(reorder: AudioReorder, numbers: list[int]) -> tuple[list[int], list[int]]:
    """The numbers given out, and for each arrival how many packets were held after it."""
    out, held = [], []
    for number in numbers:
        due = reorder.add(Packet(number % SEQ_WRAP))
        if due is not None:
            out.append(due.sequence_number)
        held.append(len(reorder._held))
    return out, held


def test_a_lost_packet_costs_itself_alone_and_the_delay_stays_put():
    """1 packet in 16 lost: aiortc's buffer lost the four before each hole as well (31% of the audio)."""
    sent = [n for n in range(1, 1601) if n % 16]
    out, held = play(AudioReorder(depth=4), sent)
    assert out == sent[:-4]  # all but the last four, still waiting for newer ones
    assert max(held) <= 5


def test_reordered_packets_come_out_in_order_none_lost():
    rng = random.Random(5)
    sent = list(range(500))
    for start in range(0, 496, 4):  # each run of four shuffled: within the buffer's depth
        run = sent[start:start + 4]
        rng.shuffle(run)
        sent[start:start + 4] = run
    out, _ = play(AudioReorder(depth=4), sent)
    assert out == list(range(496))


def test_a_packet_later_than_its_turn_is_dropped_not_given_out_twice_or_out_of_order():
    out, _ = play(AudioReorder(depth=2), [0, 1, 2, 4, 5, 6, 3, 7, 5])
    assert out == [0, 1, 2, 4, 5]  # 3 came after 4 was out; the second 5 is a duplicate


def test_sequence_numbers_wrap():
    sent = list(range(SEQ_WRAP - 10, SEQ_WRAP + 10))
    out, _ = play(AudioReorder(depth=4), sent)
    assert out == [n % SEQ_WRAP for n in sent[:-4]]


def test_a_burst_lost_is_skipped_at_once():
    sent = list(range(10)) + list(range(60, 70))
    out, held = play(AudioReorder(depth=4), sent)
    assert out == list(range(10)) + list(range(60, 66))
    assert max(held) <= 5


def test_a_sender_that_restarts_its_numbering_is_followed():
    sent = list(range(1000, 1020)) + list(range(0, 20))
    out, _ = play(AudioReorder(depth=4), sent)
    assert out == list(range(1000, 1016)) + list(range(0, 16))  # four of the old run never come out
