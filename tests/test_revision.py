"""An ended utterance decoded once more, whole: the revision policy, driven with scripted inputs (no model)."""

from __future__ import annotations

from streamtwin.events import TranscriptFinal, TranscriptRevised
from streamtwin.speech.agreement import StreamingTranscriber
from streamtwin.speech.hypotheses import Word
from streamtwin.speech.revision import CONTEXT_S, Revisions, revised_transcript
from tests.test_agreement import feed_vad

MISHEARD = [(" It", 0.2, 0.4), (" beats", 0.4, 0.7), (" our", 0.7, 0.9), (" own", 0.9, 1.1), (" servant's", 1.1, 1.6)]


def ended_utterance(**options) -> tuple[StreamingTranscriber, list]:
    """A policy whose first utterance ("It beats our own servant's") was committed and has ended."""
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3, **options)
    out = feed_vad(policy, 0.0, 1.8, 0.9)
    out += policy.on_decoded(policy.next_decode(), MISHEARD)
    out += feed_vad(policy, 1.8, 2.4, 0.0)  # silence: the utterance ends
    request = policy.next_decode(peek=True)
    if request is not None and request.kind == "final":
        out += policy.on_decoded(policy.next_decode(), MISHEARD)
    finals = [e for e in out if isinstance(e, TranscriptFinal)]
    assert " ".join(e.text for e in finals) == "It beats our own servant's" and finals[-1].utterance_end
    return policy, out


def test_an_ended_utterance_is_decoded_again_whole_and_a_new_reading_replaces_its_text():
    policy, _ = ended_utterance()
    revision = policy.next_decode()
    assert revision.kind == "revise" and revision.utterance == 1
    assert revision.start == 0.0 and abs(revision.end - 2.0) < 1e-9  # 0.3 s before the first word, 0.4 after
    assert policy.keep_from <= revision.start  # its audio is kept until it ran
    out = policy.on_decoded(revision, [(" It", 0.2, 0.4), (" beats", 0.4, 0.7), (" around", 0.7, 1.1),
                                       (" 70", 1.1, 1.4), (" times.", 1.4, 1.6)])
    assert out == [TranscriptRevised(
        text="It beats around 70 times.", start=0.2, end=1.6,
        words=[["It", 0.2, 0.4], ["beats", 0.4, 0.7], ["around", 0.7, 1.1], ["70", 1.1, 1.4], ["times.", 1.4, 1.6]],
        utterance=1, language="", replaces="It beats our own servant's", media_time=2.0,
    )]
    assert policy.idle and policy.keep_from <= revision.start  # done, but the next one may hear it
    feed_vad(policy, 2.4, 2.4 + CONTEXT_S, 0.0)  # nobody spoke again soon enough to hear it with
    assert policy.keep_from > 2.0  # the audio may go


def test_the_same_words_again_send_nothing():
    policy, _ = ended_utterance()
    revision = policy.next_decode()
    assert policy.on_decoded(revision, [(t.upper(), s, e) for t, s, e in MISHEARD]) == []  # case is not a word
    assert policy.idle


def test_a_revision_the_engine_had_no_time_for_is_dropped_not_queued():
    policy, _ = ended_utterance(revise_within_s=1.0)
    feed_vad(policy, 2.4, 3.2, 0.0)  # more than a second after its end, nobody asked
    assert policy.next_decode() is None
    assert policy.revisions.dropped == 1 and policy.revisions.keep_from is None


def test_revisions_can_be_turned_off():
    policy, _ = ended_utterance(revise_within_s=0.0)
    assert policy.next_decode() is None and policy.idle


def test_a_running_revision_lets_the_next_utterance_decode_only_on_a_spare_worker():
    policy, _ = ended_utterance()
    revision = policy.next_decode()
    feed_vad(policy, 2.4, 3.4, 0.9)  # someone speaks again
    assert policy.next_decode(overlap=False) is None  # no spare worker: the step waits for the revision
    step = policy.next_decode(overlap=True)
    assert step.kind == "step" and step.overlapped
    assert policy.on_decoded(revision, MISHEARD) == []  # the same words
    assert policy.revisions.keep_from is None


def test_a_decode_that_stopped_early_or_looped_is_no_revision():
    said = [Word(f" w{i}", i * 0.3, i * 0.3 + 0.2) for i in range(6)]
    for heard in ([Word(" w0", 0.0, 0.2), Word(" x", 0.3, 0.5)],  # a third of the words
                  [Word(f" y{i}", i * 0.1, i * 0.1 + 0.05) for i in range(15)]):  # more than twice as many
        revisions = Revisions()
        revisions.closed(1, said, "en", 0.0)
        revision = revisions.due(2.0)
        revisions.started(revision)
        assert revisions.result(1, heard, 2.0) is None
    revisions = Revisions()
    revisions.closed(2, said, "en", 0.0)
    revisions.started(revisions.due(2.0))
    assert revisions.result(2, said[:3] + [Word(" z", 1.0, 1.2)] + said[4:], 2.0).text == "w0 w1 w2 z w4 w5"


def test_the_revised_transcript_replaces_each_revised_utterances_finals():
    events = [
        TranscriptFinal(text="It beats our", start=0.2, end=0.9, utterance=1),
        TranscriptFinal(text="own servant's", start=0.9, end=1.6, utterance=1, utterance_end=True),
        TranscriptFinal(text="Next.", start=3.0, end=3.4, utterance=2, utterance_end=True),
        TranscriptRevised(text="It beats around 70 times.", start=0.2, end=1.6, utterance=1),
    ]
    assert revised_transcript(events) == "It beats around 70 times. Next."
    assert revised_transcript(events[:3]) == "It beats our own servant's Next."


def test_beside_a_running_step_a_waiting_revision_goes_before_a_second_step():
    policy, _ = ended_utterance()
    feed_vad(policy, 2.4, 3.4, 0.9)  # the next utterance began before the revision ran
    step = policy.next_decode()
    assert step.kind == "step"
    feed_vad(policy, 3.4, 3.8, 0.9)  # a second step would be due on the spare worker
    beside = policy.next_decode(overlap=True)
    assert beside.kind == "revise" and beside.utterance == 1


REVISED = [(" It", 0.2, 0.4), (" beats", 0.4, 0.7), (" around", 0.7, 1.1), (" 70", 1.1, 1.4), (" times.", 1.4, 1.6)]


def revised_then_another(silence_s: float):
    """The first utterance revised, ``silence_s`` of silence, then "Next one" said and ended: its revision."""
    policy, _ = ended_utterance()
    policy.on_decoded(policy.next_decode(), REVISED)
    t = 2.4 + silence_s
    feed_vad(policy, 2.4, t, 0.0)
    feed_vad(policy, t, t + 1.4, 0.9)
    step = policy.next_decode()
    assert step.prompt == "It beats our own servant's"  # streaming reads after its own commits
    policy.on_decoded(step, [(" Next", t + 0.5 - step.start, t + 0.8 - step.start),
                             (" one", t + 0.8 - step.start, t + 1.1 - step.start)])
    feed_vad(policy, t + 1.4, t + 2.0, 0.0)  # the second utterance ends
    second = policy.next_decode()  # the last step heard it all: its revision is next
    assert second.kind == "revise" and second.utterance == 2
    return policy, second, t


def test_the_next_revision_reads_after_the_revised_text_not_the_misreading():
    policy, second, _ = revised_then_another(silence_s=CONTEXT_S + 1)
    assert second.prompt == "It beats around 70 times."
    # Only what was revised is read differently: words around it stay as committed.
    said = [Word(t, s, e) for t, s, e in MISHEARD]
    assert policy.revisions.as_read([Word(" So", 0.0, 0.1), *said, Word(" Next", 3.0, 3.3)])[0].text == " So"
    assert [w.text for w in policy.revisions.as_read([*said, Word(" Next", 3.0, 3.3)])][-2:] == [" times.", " Next"]


def test_a_revision_hears_the_utterance_just_before_it_and_keeps_only_its_own_words():
    policy, second, t = revised_then_another(silence_s=1.0)
    assert second.start == 0.0 and second.prompt == ""  # the first utterance's audio, not its text
    assert policy.keep_from <= 0.0  # kept for it
    heard = [(w, s - second.start, e - second.start) for w, s, e in
             [*REVISED, (" Next", t + 0.5, t + 0.8), (" won.", t + 0.8, t + 1.1)]]
    (revised,) = policy.on_decoded(second, heard)
    assert revised.text == "Next won." and revised.utterance == 2 and revised.replaces == "Next one"


def test_a_reading_that_stopped_after_the_earlier_utterance_is_read_again_alone():
    earlier = [Word(" Too", 0.5, 0.8), Word(" small.", 0.8, 1.2)]
    own = [Word(f" w{i}", 3.0 + i * 0.3, 3.2 + i * 0.3) for i in range(6)]
    revisions = Revisions()
    revisions.closed(1, earlier, "en", 0.3)
    revisions.started(revisions.due(1.6))
    revisions.result(1, earlier, 1.6)
    revisions.closed(2, own, "en", 2.7)
    with_context = revisions.due(5.0)
    assert with_context.context_from == 0.3
    revisions.started(with_context)
    # Whisper ended after the earlier utterance: none of this one's own words.
    assert revisions.result(2, earlier, 5.0) is None
    alone = revisions.due(5.2)
    assert (alone.utterance, alone.context_from, alone.start) == (2, None, 2.7)
    revisions.started(alone)
    heard = own[:2] + [Word(" z", 3.6, 3.8)] + own[3:]
    assert revisions.result(2, heard, 5.5).text == "w0 w1 z w3 w4 w5"
    # Read alone, a decode that stops early is no revision, and it is not read a third time.
    revisions.closed(3, [Word(f" v{i}", 6.0 + i * 0.3, 6.2 + i * 0.3) for i in range(6)], "en", 5.8)
    revisions.started(revisions.due(8.0))
    assert revisions.result(3, [], 8.0) is None
    assert revisions.due(8.1).utterance == 3  # with context it stopped early: read alone once more
    revisions.started(revisions.due(8.1))
    assert revisions.result(3, [], 8.2) is None
    assert revisions.due(8.3) is None
