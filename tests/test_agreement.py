"""The streaming-agreement policy and the endpointer, driven with scripted inputs (no model)."""

from __future__ import annotations

from streamtwin.events import TranscriptFinal, TranscriptPartial
from streamtwin.speech.agreement import DecodeRequest, StreamingTranscriber
from streamtwin.speech.hypotheses import LocalAgreement, Word
from streamtwin.speech.endpoint import Endpointer, SpeechEnd, SpeechPause, SpeechStart
from streamtwin.speech.revision import Revisions
from streamtwin.speech.transcript_out import TranscriptOut

WINDOW = 0.032


def words(*spec: tuple[str, float, float]) -> list[Word]:
    return [Word(f" {t}", s, e) for t, s, e in spec]


def feed_vad(policy: StreamingTranscriber, start: float, end: float, prob: float) -> list:
    t, events = start, []
    while t < end - 1e-9:
        policy.on_audio(t + WINDOW)
        events += policy.on_vad(prob, t, t + WINDOW)
        t += WINDOW
    return events


# --- LocalAgreement ------------------------------------------------------------


def test_commits_only_the_prefix_two_hypotheses_agree_on():
    agreement = LocalAgreement()
    assert agreement.insert(words(("the", 0.0, 0.2), ("budget", 0.2, 0.6))) == []
    agreed = agreement.insert(words(("the", 0.0, 0.2), ("budget", 0.2, 0.6), ("report", 0.6, 1.0)))
    assert [w.key for w in agreed] == ["the", "budget"]
    assert [w.key for w in agreement.hypothesis] == ["report"]


def test_disagreement_commits_nothing_and_replaces_hypothesis():
    agreement = LocalAgreement()
    agreement.insert(words(("ali", 0.0, 0.3), ("will", 0.3, 0.5)))
    assert agreement.insert(words(("alice", 0.0, 0.3), ("will", 0.3, 0.5))) == []
    agreed = agreement.insert(words(("Alice", 0.0, 0.3), ("will", 0.3, 0.5), ("send", 0.5, 0.8)))
    assert [w.key for w in agreed] == ["alice", "will"]


def read_god_then_good(agreement: LocalAgreement) -> list[Word]:
    """Two hypotheses that differ only in their first word; what the second one agrees."""
    agreement.insert(words(("God", 0.0, 0.3), ("then", 0.5, 0.8), ("we", 0.8, 0.9), ("can", 0.9, 1.1)))
    return agreement.insert(words(("Good", 0.0, 0.3), ("then", 0.5, 0.8), ("we", 0.8, 0.9), ("can", 0.9, 1.1),
                                  ("launch", 1.1, 1.5)))


def test_a_word_read_two_ways_is_agreed_as_the_newer_reads_it_when_the_next_two_agree():
    """A first word after a silence read differently by every decode held the whole utterance back."""
    assert [w.key for w in read_god_then_good(LocalAgreement(substitute_after=2))] == ["good", "then", "we", "can"]
    # Off (plain LocalAgreement-2), the same two commit nothing.
    assert read_god_then_good(LocalAgreement()) == []


def test_the_streaming_policy_agrees_on_a_word_read_two_ways():
    agreed = read_god_then_good(StreamingTranscriber().agreement)
    assert [w.key for w in agreed] == ["good", "then", "we", "can"]


def test_a_word_read_two_ways_waits_unless_two_words_after_it_agree():
    agreement = LocalAgreement(substitute_after=2)
    agreement.insert(words(("Good", 0.0, 0.3), ("and", 0.5, 0.7), ("we", 0.7, 0.8), ("can", 0.8, 1.0)))
    assert agreement.insert(words(("God", 0.0, 0.3), ("then", 0.5, 0.8), ("we", 0.8, 0.9), ("can", 0.9, 1.1),
                                  ("launch", 1.1, 1.5))) == []  # two words differ
    agreement = LocalAgreement(substitute_after=2)
    agreement.insert(words(("the", 0.0, 0.2), ("budget", 0.2, 0.6), ("report", 0.6, 1.0)))
    agreed = agreement.insert(words(("the", 0.0, 0.2), ("budgets", 0.2, 0.6), ("report", 0.6, 1.0), ("is", 1.0, 1.2)))
    assert [w.key for w in agreed] == ["the"]  # one word after it agrees, and the newest's last word is held back


def test_agreement_ignores_case_and_punctuation():
    agreement = LocalAgreement()
    agreement.insert(words(("Friday.", 1.0, 1.4)))
    assert [w.key for w in agreement.insert(words(("friday", 1.0, 1.4), ("then", 1.5, 1.7)))] == ["friday"]


def test_the_last_word_of_a_hypothesis_is_held_back_even_when_both_agree():
    agreement = LocalAgreement()
    agreement.insert(words(("plan", 0.0, 0.3)))
    assert agreement.insert(words(("plan", 0.0, 0.3))) == []  # may still become "planning"
    assert [w.key for w in agreement.insert(words(("planning", 0.0, 0.5)))] == []
    assert [w.key for w in agreement.insert(words(("planning", 0.0, 0.5), ("it", 0.6, 0.7)))] == ["planning"]


def test_words_heard_again_after_the_commit_point_are_not_committed_twice():
    agreement = LocalAgreement()
    agreement.insert(words(("we", 0.0, 0.2), ("decided", 0.2, 0.6), ("to", 0.6, 0.7)))
    agreement.insert(words(("we", 0.0, 0.2), ("decided", 0.2, 0.6), ("to", 0.6, 0.7), ("move", 0.7, 1.0)))
    # the next window re-reads "to" with a slightly later timestamp
    agreed = agreement.insert(words(("to", 0.62, 0.72), ("move", 0.72, 1.0), ("it", 1.0, 1.1)))
    assert [w.key for w in agreed] == ["move"]
    agreed = agreement.insert(words(("to", 0.62, 0.72), ("move", 0.72, 1.0), ("it", 1.0, 1.1), ("on", 1.2, 1.3)))
    assert [w.key for w in agreed] == ["it"]
    assert [w.key for w in agreement.committed] == ["we", "decided", "to", "move", "it"]


def test_a_word_a_later_decode_times_before_the_commit_point_starts_where_the_committed_ended():
    # meeting_de at the file step: "mein" was committed ending at 28.962 and the next decode put the following
    # word at 28.882: two finals overlapped.  What is committed never starts before what was committed ended.
    agreement = LocalAgreement()
    agreement.insert(words(("ich", 28.0, 28.4), ("mein", 28.5, 28.96)))
    agreement.insert(words(("ich", 28.0, 28.4), ("mein", 28.5, 28.96), ("neue", 29.0, 29.3)))
    assert agreement.committed_end == 28.96
    agreed = agreement.insert(words(("neue", 28.88, 29.3), ("leute", 29.3, 29.6)))
    assert [(w.key, w.start, w.end) for w in agreed] == [("neue", 28.96, 29.3)]
    agreement.hypothesis = words(("leute", 29.25, 29.6), ("für", 29.6, 29.8))
    assert [(w.key, w.start) for w in agreement.commit_all()] == [("leute", 29.3), ("für", 29.6)]


def test_agreement_needs_hypotheses_heard_a_stride_apart():
    """Decodes a quarter second apart make the same mistake twice; agreement waits for more audio."""
    agreement = LocalAgreement(stride=0.5)
    assert agreement.insert(words(("the", 0.0, 0.2), ("teeth", 0.2, 0.6), ("are", 0.6, 0.8)), heard_until=1.0) == []
    assert agreement.insert(words(("the", 0.0, 0.2), ("teeth", 0.2, 0.6), ("are", 0.6, 0.8), ("round", 0.8, 1.1)),
                            heard_until=1.25) == []  # agrees with the decode before, but only 0.25 s later
    agreed = agreement.insert(words(("it", 0.0, 0.2), ("beats", 0.2, 0.6), ("around", 0.6, 1.1), ("70", 1.2, 1.4)),
                              heard_until=1.5)  # 0.5 s after the first: disagrees, nothing committed
    assert agreed == []
    agreed = agreement.insert(words(("it", 0.0, 0.2), ("beats", 0.2, 0.6), ("around", 0.6, 1.1), ("70", 1.2, 1.4),
                                    ("times", 1.5, 1.8)), heard_until=2.0)
    assert [w.key for w in agreed] == ["it", "beats", "around", "70"]


def sure(*spec: tuple[str, float, float, float]) -> list[Word]:
    """Words with the decoder's probability of each."""
    return [Word(f" {t}", s, e, p) for t, s, e, p in spec]


def test_words_the_decoder_is_sure_of_commit_past_the_agreed_prefix_until_an_unsure_one():
    agreement = LocalAgreement(confident=0.9)
    agreement.insert(sure(("the", 0.0, 0.2, 0.99), ("budget", 0.2, 0.6, 0.98)), heard_until=0.7)
    agreed = agreement.insert(sure(("the", 0.0, 0.2, 0.99), ("budget", 0.2, 0.6, 0.98), ("report", 0.6, 1.0, 0.97),
                                   ("is", 1.0, 1.1, 0.6), ("late", 1.1, 1.4, 0.99), ("now", 1.4, 1.6, 0.99)),
                              heard_until=1.65)
    # "report" heard once but sure; "is" unsure, so it and "late" wait for a second hearing; "now" is the last word
    assert [w.key for w in agreed] == ["the", "budget", "report"]
    assert [w.key for w in agreement.hypothesis] == ["is", "late", "now"]


def test_without_the_setting_or_with_unknown_probabilities_a_word_waits_for_agreement():
    for agreement, make in ((LocalAgreement(), sure), (LocalAgreement(confident=0.9), None)):
        hear = make or (lambda *spec: words(*[(t, s, e) for t, s, e, _ in spec]))
        agreement.insert(hear(("the", 0.0, 0.2, 0.99)), heard_until=0.3)
        agreed = agreement.insert(hear(("the", 0.0, 0.2, 0.99), ("budget", 0.2, 0.6, 0.99), ("report", 0.6, 1.0, 0.99)),
                                  heard_until=1.05)
        assert [w.key for w in agreed] == ["the"]


def test_a_disagreement_or_a_first_hearing_commits_nothing_however_sure_the_decoder_is():
    agreement = LocalAgreement(confident=0.9)
    first = sure(("ali", 0.0, 0.3, 0.95), ("will", 0.3, 0.5, 0.95), ("go", 0.5, 0.7, 0.95))
    assert agreement.insert(first, heard_until=0.8) == []  # nothing heard before it
    agreed = agreement.insert(sure(("alice", 0.0, 0.3, 0.99), ("will", 0.3, 0.5, 0.99), ("send", 0.5, 0.8, 0.99),
                                   ("it", 0.8, 0.9, 0.99)), heard_until=1.0)
    assert agreed == []


def test_committed_words_stay_bounded_over_a_long_session():
    agreement = LocalAgreement()
    for i in range(5000):
        agreement.insert(words((f"w{i}", i, i + 0.5)))
        agreement.commit_all()
    assert len(agreement.committed) <= LocalAgreement.KEEP_COMMITTED
    assert agreement.committed[-1].key == "w4999"
    assert agreement.prompt(before=5000.0).endswith("w4999")


def test_prompt_holds_only_text_before_the_window():
    agreement = LocalAgreement()
    agreement.insert(words(("one", 0.0, 0.5), ("two", 0.5, 1.0), ("three", 1.0, 1.5)))
    agreement.commit_all()
    assert agreement.prompt(before=1.0) == "one two"


# --- Endpointer ----------------------------------------------------------------


def run_endpointer(endpointer: Endpointer, pattern: list[tuple[float, float]]) -> list[object]:
    edges, t = [], 0.0
    for prob, duration in pattern:
        for _ in range(round(duration / WINDOW)):
            edges += endpointer.push(prob, t, t + WINDOW)
            t += WINDOW
    return edges


def test_endpointer_reports_start_pause_and_end_once_each():
    edges = run_endpointer(Endpointer(pause_s=0.2, end_s=0.4), [(0.0, 0.32), (0.9, 1.0), (0.1, 0.64)])
    kinds = [type(e) for e in edges]
    assert kinds == [SpeechStart, SpeechPause, SpeechEnd]
    assert abs(edges[0].time - (0.32 - 0.15)) < 1e-6  # padded backwards
    assert abs(edges[2].time - edges[1].time) < 1e-6  # both mark where the silence began


def test_endpointer_short_dip_is_not_a_pause():
    edges = run_endpointer(Endpointer(pause_s=0.2), [(0.9, 0.5), (0.1, 0.096), (0.9, 0.5)])
    assert [type(e) for e in edges] == [SpeechStart]


def test_endpointer_ignores_a_click():
    edges = run_endpointer(Endpointer(min_speech_s=0.1), [(0.9, 0.032), (0.0, 1.0)])
    assert [type(e) for e in edges] == [SpeechStart]  # started, but its end is not worth a decode


def test_endpointer_finish_closes_open_speech():
    endpointer = Endpointer()
    run_endpointer(endpointer, [(0.9, 1.0)])
    assert [type(e) for e in endpointer.finish(1.0)] == [SpeechEnd]
    assert endpointer.finish(1.0) == []


# --- StreamingTranscriber --------------------------------------------------------


def test_no_decode_in_silence():
    policy = StreamingTranscriber(step_s=0.5)
    feed_vad(policy, 0.0, 3.0, 0.0)
    assert policy.next_decode() is None
    policy.finish()
    assert policy.next_decode() is None


def test_decodes_start_at_speech_and_only_one_is_in_flight():
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.0, 0.0)
    feed_vad(policy, 1.0, 1.7, 0.9)
    request = policy.next_decode()
    assert request is not None and request.kind == "step"
    assert abs(request.start - (1.0 - 0.15)) < 0.05  # the silence before speech is skipped
    feed_vad(policy, 1.7, 2.5, 0.9)
    assert policy.next_decode() is None  # one decode in flight at a time


def test_steps_commit_by_agreement_and_partials_show_the_tail():
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.0, 0.9)
    first = policy.next_decode()
    out = policy.on_decoded(first, [(" Alice", 0.0, 0.4), (" will", 0.4, 0.7)])
    assert [type(e) for e in out] == [TranscriptPartial]
    assert out[0].text == "Alice will"
    feed_vad(policy, 1.0, 1.6, 0.9)
    second = policy.next_decode()
    out = policy.on_decoded(second, [(" Alice", 0.0, 0.4), (" will", 0.4, 0.7), (" send", 0.7, 1.2)])
    finals = [e for e in out if isinstance(e, TranscriptFinal)]
    partials = [e for e in out if isinstance(e, TranscriptPartial)]
    assert finals[0].text == "Alice will" and finals[0].start == 0.0 and finals[0].end == 0.7
    assert finals[0].words == [["Alice", 0.0, 0.4], ["will", 0.4, 0.7]]
    assert partials[0].text == "send"


def test_pause_commits_what_precedes_it_and_cuts_the_window_there_with_an_overlap():
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 3.5, 0.9)
    feed_vad(policy, 3.5, 3.75, 0.0)  # a 0.25 s pause
    request = policy.next_decode()
    assert request.kind == "pause"
    assert request.end <= 3.6 + 1e-6  # the decode stops right after the pause edge
    spoken = [(" Bob", 0.2, 0.6), (" agreed", 0.6, 1.4), (" to", 1.5, 1.7), (" send", 1.7, 2.4), (" it.", 2.7, 3.4)]
    out = policy.on_decoded(request, spoken)
    assert [e.text for e in out if isinstance(e, TranscriptFinal)] == ["Bob agreed to send it."]
    # Short windows: the next one starts near the pause, re-reading the last second's words
    # (so its first new word is not cut), with everything before as its prompt.
    assert policy.window_start == 2.7
    assert policy.next_decode() is None  # the pause was handled once
    feed_vad(policy, 3.75, 4.6, 0.9)
    request = policy.next_decode()
    assert request.start == 2.7 and request.prompt == "Bob agreed to send"
    out = policy.on_decoded(request, [(" it.", 0.0, 0.7), (" Then", 1.2, 1.5), (" we", 1.5, 1.7)])
    feed_vad(policy, 4.6, 5.2, 0.9)
    out += policy.on_decoded(policy.next_decode(), [(" it.", 0.0, 0.7), (" Then", 1.2, 1.5),
                                                    (" we", 1.5, 1.7), (" go", 1.7, 1.8)])
    assert [e.text for e in out if isinstance(e, TranscriptFinal)] == ["Then we"]  # "it." is not said twice


def test_after_a_cut_the_re_read_words_count_towards_the_first_second_of_a_window():
    """The first words after a pause commit as soon as two decodes agree: the window heard the committed
    words before them, so its first decodes are no guesses (a fresh window's first second still is)."""
    policy = StreamingTranscriber(step_s=0.3, min_decode_s=0.3)
    feed_vad(policy, 0.0, 3.5, 0.9)
    feed_vad(policy, 3.5, 3.75, 0.0)
    spoken = [(" Bob", 0.2, 0.6), (" agreed", 0.6, 1.4), (" to", 1.5, 1.7), (" send", 1.7, 2.4), (" it.", 2.7, 3.4)]
    policy.on_decoded(policy.next_decode(), spoken)
    assert policy.window_start == 2.7
    feed_vad(policy, 3.75, 4.05, 0.9)
    first = policy.next_decode()
    assert first.end - 3.5 < policy.min_agreement_s  # under a second of new speech
    policy.on_decoded(first, [(" it.", 0.0, 0.7), (" Then", 1.1, 1.25), (" we", 1.25, 1.35)])
    feed_vad(policy, 4.05, 4.4, 0.9)
    second = policy.next_decode()
    out = policy.on_decoded(second, [(" it.", 0.0, 0.7), (" Then", 1.1, 1.25), (" we", 1.25, 1.35), (" go", 1.4, 1.6)])
    assert [e.text for e in out if isinstance(e, TranscriptFinal)] == ["Then we"]


def test_a_pause_early_in_a_window_commits_nothing():
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 0.9, 0.9)
    feed_vad(policy, 0.9, 1.15, 0.0)  # a pause 0.9 s into the utterance: "Good point. ..."
    request = policy.next_decode()
    assert request.kind == "step"
    out = policy.on_decoded(request, [(" Got", 0.1, 0.3), (" point.", 0.3, 0.8)])
    assert not [e for e in out if isinstance(e, TranscriptFinal)]  # a short guess is not final
    assert policy.window_start == 0.0


def test_a_step_that_heard_past_the_pause_commits_without_another_decode():
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.5, 0.9)
    step = policy.next_decode()  # in flight while the speaker pauses
    feed_vad(policy, 1.5, 1.75, 0.0)
    assert step.kind == "step" and policy.next_decode() is None
    step_past = type(step)(step.id, step.start, 1.7, "step", step.prompt)
    out = policy.on_decoded(step_past, [(" Bob", 0.2, 0.6), (" agreed.", 0.6, 1.4)])
    assert [e.text for e in out if isinstance(e, TranscriptFinal)] == ["Bob agreed."]
    assert policy.next_decode() is None


def test_speech_end_flushes_the_latest_hypothesis_at_once_when_it_heard_the_end():
    policy = StreamingTranscriber(Endpointer(pause_s=0.35, end_s=0.4), step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.0, 0.9)
    feed_vad(policy, 1.0, 1.2, 0.0)  # silence begins at 1.0; a decode hears up to 1.2
    out = policy.on_decoded(policy.next_decode(), [(" we", 0.1, 0.4), (" decided", 0.4, 0.95)])
    assert not [e for e in out if isinstance(e, TranscriptFinal)]  # "decided" is held back
    out = []
    for t in (1.2, 1.232, 1.264, 1.296, 1.328, 1.36, 1.392):  # the rest of the 400 ms end-of-speech wait
        policy.on_audio(t + 0.032)
        out += policy.on_vad(0.0, t, t + 0.032)
    finals = [e for e in out if isinstance(e, TranscriptFinal)]
    assert [(e.text, e.utterance, e.utterance_end) for e in finals] == [("we decided", 1, True)]
    assert out[-1] == TranscriptPartial(text="", start=out[-1].start, media_time=out[-1].media_time)
    assert policy.next_decode().kind == "revise"  # no extra decode for the end, only its revision


def test_speech_end_decodes_once_more_when_the_latest_hypothesis_missed_the_end():
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 0.7, 0.9)
    policy.on_decoded(policy.next_decode(), [(" we", 0.1, 0.4), (" deci", 0.4, 0.7)])
    feed_vad(policy, 0.7, 1.0, 0.9)
    feed_vad(policy, 1.0, 1.6, 0.0)  # long silence: the utterance ended
    request = policy.next_decode()
    assert request.kind == "final"
    out = policy.on_decoded(request, [(" we", 0.1, 0.4), (" decided", 0.4, 0.95)])
    finals = [e for e in out if isinstance(e, TranscriptFinal)]
    assert [(e.text, e.utterance_end) for e in finals] == [("we decided", True)]
    assert policy.next_decode().kind == "revise"


def test_utterances_are_numbered_and_closed_even_when_a_pause_committed_everything():
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.5, 0.9)
    feed_vad(policy, 1.5, 1.75, 0.0)  # pause: commits everything
    out = policy.on_decoded(policy.next_decode(), [(" Bob", 0.2, 0.6), (" agreed.", 0.6, 1.4)])
    first = [e for e in out if isinstance(e, TranscriptFinal)]
    assert [(e.text, e.utterance, e.utterance_end) for e in first] == [("Bob agreed.", 1, False)]
    closing = [e for e in policy.on_vad(0.0, 1.9, 1.932) if isinstance(e, TranscriptFinal)]
    assert [(e.text, e.utterance, e.utterance_end) for e in closing] == [("", 1, True)]
    feed_vad(policy, 1.932, 3.0, 0.0)
    feed_vad(policy, 3.0, 4.0, 0.9)
    out = policy.on_decoded(policy.next_decode(), [(" Next", 0.2, 0.5), (" one", 0.5, 0.8)])
    out += feed_vad(policy, 4.0, 4.5, 0.0)
    out += policy.finish()
    if (request := policy.next_decode()) is not None:
        out += policy.on_decoded(request, [(" Next", 0.2, 0.5), (" one", 0.5, 0.8)])
    finals = [e for e in out if isinstance(e, TranscriptFinal)]
    assert [(e.text, e.utterance, e.utterance_end) for e in finals] == [("Next one", 2, True)]


def test_noise_that_yields_no_words_closes_no_utterance():
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.0, 0.9)
    policy.on_decoded(policy.next_decode(), [])
    out = []
    for t in (1.0, 1.032, 1.064, 1.096, 1.128, 1.16, 1.192, 1.224, 1.256, 1.288, 1.32, 1.352, 1.384, 1.416):
        policy.on_audio(t + 0.032)
        out += policy.on_vad(0.0, t, t + 0.032)
    if (request := policy.next_decode()) is not None:
        out += policy.on_decoded(request, [])
    assert not [e for e in out if isinstance(e, TranscriptFinal)]
    assert policy.utterance == 1


def test_source_end_flushes_open_speech():
    policy = StreamingTranscriber(step_s=0.5)
    feed_vad(policy, 0.0, 0.8, 0.9)
    policy.on_decoded(policy.next_decode(), [(" hello", 0.0, 0.5)])
    feed_vad(policy, 0.8, 1.2, 0.9)
    policy.finish()
    request = policy.next_decode()
    assert request is not None and request.kind == "final"
    out = policy.on_decoded(request, [(" hello", 0.0, 0.5), (" there", 0.5, 1.1)])
    assert [e.text for e in out if isinstance(e, TranscriptFinal)] == ["hello there"]
    assert not policy.idle  # the utterance's revision is still due
    revision = policy.next_decode()
    assert policy.on_decoded(revision, [(" hello", 0.3, 0.8), (" there", 0.8, 1.4)]) == []  # the same words
    assert policy.idle


def test_punctuation_printed_as_a_word_joins_the_word_before():
    policy = StreamingTranscriber(step_s=5.0, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.5, 0.9)
    feed_vad(policy, 1.5, 1.75, 0.0)
    out = policy.on_decoded(policy.next_decode(), [(".", 0.0, 0.1), (" Good", 0.2, 0.6), (" point", 0.6, 1.2),
                                                   (".", 1.2, 1.3)])
    assert [e.words for e in out if isinstance(e, TranscriptFinal)] == [[["Good", 0.2, 0.6], ["point.", 0.6, 1.2]]]


def test_window_cap_forces_commits_and_trims():
    policy = StreamingTranscriber(step_s=0.5, max_window_s=4.0, min_decode_s=0.3)
    feed_vad(policy, 0.0, 5.0, 0.9)
    request = policy.next_decode()
    hypothesis = [(f" w{i}", i * 0.5, i * 0.5 + 0.4) for i in range(10)]
    out = policy.on_decoded(request, hypothesis)
    final = [e for e in out if isinstance(e, TranscriptFinal)][0]
    assert final.end <= request.end - 1.0 + 1e-6
    assert final.end - 1.0 <= policy.window_start < final.end  # cut, with a word of overlap


def test_invented_segments_are_dropped_before_agreement():
    from streamtwin.speech.hypotheses import DecodedSegment, speech_words

    real = DecodedSegment([(" Good", 0.0, 0.4, 0.45), (" morning.", 0.4, 0.7, 0.99)], no_speech_prob=0.09)
    thank_you = DecodedSegment([(" Thank", 0.7, 0.74, 0.05), (" you.", 0.74, 0.78, 0.98)], no_speech_prob=0.53)
    mumble = DecodedSegment([(" Bye!", 0.8, 0.9, 0.03)], no_speech_prob=0.3)
    assert speech_words([real, thank_you, mumble]) == [(" Good", 0.0, 0.4, 0.45), (" morning.", 0.4, 0.7, 0.99)]


def test_a_window_joined_mid_sentence_is_still_speech():
    from streamtwin.speech.hypotheses import DecodedSegment, speech_words

    # Measured: audio starting mid-word scores no-speech 0.49, but its words are confident.
    joined = DecodedSegment([(" Everyone,", 0.0, 0.3, 0.71), (" let's", 0.3, 0.5, 0.9), (" start", 0.5, 0.9, 0.88)], 0.49)
    assert [w[0] for w in speech_words([joined])] == [" Everyone,", " let's", " start"]


def test_silence_keeps_only_the_pad_a_speech_start_can_reach_back_over():
    policy = StreamingTranscriber(step_s=0.5)
    feed_vad(policy, 0.0, 600.0, 0.0)  # ten quiet minutes
    dropped_before = policy.keep_from
    assert dropped_before > 597.0  # at most the pad and the context of a previous utterance
    feed_vad(policy, 600.0, 601.0, 0.9)
    request = policy.next_decode()
    assert request.start >= dropped_before  # no decode ever asks for audio already dropped
    assert policy.keep_from == policy.window_start == request.start  # speech: the whole window is kept


def test_while_the_language_is_unknown_a_short_utterance_waits_for_the_next_in_one_window():
    """1.5 s of German read as Thai: a short first utterance is decoded with the speech after it."""
    policy = StreamingTranscriber(step_s=0.25, min_decode_s=0.3, language_window_s=3.0)
    policy.awaiting_language = True
    feed_vad(policy, 0.0, 0.5, 0.0)
    out = feed_vad(policy, 0.5, 2.0, 0.9)  # "Guten Morgen zusammen."
    assert policy.next_decode(peek=True) is None  # under 3 s of window: no basis for a language
    out += feed_vad(policy, 2.0, 3.0, 0.0)  # its end: held, not flushed
    assert policy.next_decode(peek=True) is None
    assert not [e for e in out if isinstance(e, TranscriptFinal)]
    out += feed_vad(policy, 3.0, 4.2, 0.9)  # the next utterance
    request = policy.next_decode()
    assert request.kind == "step" and request.start <= 0.5 and request.end >= 3.5  # one window over both
    hypothesis = [(" Guten", 0.1, 0.6), (" Morgen.", 0.6, 1.4), (" Heute", 2.6, 3.0), (" sprechen", 3.0, 3.6)]
    out += policy.on_decoded(request, hypothesis)
    assert not [e for e in out if isinstance(e, TranscriptFinal)]  # nothing committed before the language
    policy.awaiting_language = False  # the adapter settled it
    policy.language = "de"
    out += feed_vad(policy, 4.2, 5.0, 0.9)
    out += feed_vad(policy, 5.0, 5.6, 0.0)
    request = policy.next_decode()
    out += policy.on_decoded(request, hypothesis + [(" wir", 3.6, 4.0)])
    finals = [e for e in out if isinstance(e, TranscriptFinal)]
    assert " ".join(e.text for e in finals) == "Guten Morgen. Heute sprechen wir"
    assert {e.language for e in finals} == {"de"}


def test_a_held_utterance_is_flushed_in_the_best_guess_when_nobody_goes_on():
    policy = StreamingTranscriber(step_s=0.25, min_decode_s=0.3, language_window_s=3.0, language_hold_s=2.0)
    policy.awaiting_language = True
    feed_vad(policy, 0.0, 1.2, 0.9)  # "Hello?"
    feed_vad(policy, 1.2, 2.5, 0.0)
    assert policy.next_decode(peek=True) is None
    assert policy.keep_from == 0.0  # its audio is kept meanwhile
    feed_vad(policy, 2.5, 3.8, 0.0)  # 2 s after its end
    request = policy.next_decode()
    assert request is not None and request.kind == "final" and request.start == 0.0
    out = policy.on_decoded(request, [(" Hello?", 0.1, 0.9)])
    assert [(e.text, e.utterance_end) for e in out if isinstance(e, TranscriptFinal)] == [("Hello?", True)]
    assert policy.next_decode(peek=True).kind == "revise"


def test_a_held_utterance_is_flushed_when_the_source_ends():
    policy = StreamingTranscriber(step_s=0.25, min_decode_s=0.3, language_window_s=3.0)
    policy.awaiting_language = True
    feed_vad(policy, 0.0, 1.2, 0.9)
    feed_vad(policy, 1.2, 1.8, 0.0)
    policy.finish()
    request = policy.next_decode()
    assert request is not None and request.kind == "final"
    out = policy.on_decoded(request, [(" Hello?", 0.1, 0.9)])
    assert [e.text for e in out if isinstance(e, TranscriptFinal)] == ["Hello?"]


def test_joined_words_never_hold_a_double_space():
    """A decoder forced through a prefix may start with a space token of its own (seen: "I think  the")."""
    from streamtwin.speech.hypotheses import join_words

    assert join_words(words(("I", 0.0, 0.1), (" think", 0.1, 0.2), ("  the", 0.2, 0.3))) == "I think the"


def test_stopped_now_the_tentative_words_become_final_and_the_decode_in_flight_is_forgotten():
    """Ctrl-C: the words already shown as tentative close the utterance without another decode."""
    policy = StreamingTranscriber(step_s=0.5)
    feed_vad(policy, 0.0, 0.8, 0.9)
    out = policy.on_decoded(policy.next_decode(), [(" hello", 0.0, 0.5), (" there", 0.5, 0.75)])
    assert [e.text for e in out if isinstance(e, TranscriptPartial)] == ["hello there"]
    feed_vad(policy, 0.8, 1.4, 0.9)
    in_flight = policy.next_decode()
    assert in_flight is not None
    policy.finish()
    out = policy.stop_now()
    (final,) = [e for e in out if isinstance(e, TranscriptFinal)]
    assert (final.text, final.utterance_end) == ("hello there", True)
    assert [e.text for e in out if isinstance(e, TranscriptPartial)] == [""]
    assert policy.next_decode() is None and policy.idle  # nothing left to ask for once stopped


def test_an_utterance_that_ends_while_the_previous_ones_final_decode_runs_is_still_decoded():
    """A slow engine (three room streams on a busy machine): the next utterance was spoken and ended
    while the decode of the previous one's end ran.  Its end must stay due, not be taken as the
    previous utterance's (which skipped its audio: "Okay, I will make the pictures" never appeared)."""
    policy = StreamingTranscriber(step_s=0.5, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.0, 0.9)
    feed_vad(policy, 1.0, 1.6, 0.0)  # the first utterance ended
    first = policy.next_decode()
    assert first.kind == "final" and first.end < 1.5
    feed_vad(policy, 1.6, 3.0, 0.9)  # the second one, spoken and ended while that decode runs
    feed_vad(policy, 3.0, 3.8, 0.0)
    out = policy.on_decoded(first, [(" Good", 0.1, 0.4), (" morning.", 0.4, 0.9)])
    assert [(e.text, e.utterance, e.utterance_end) for e in out if isinstance(e, TranscriptFinal)] == [
        ("Good morning.", 1, True)
    ]
    second = policy.next_decode()
    assert second is not None and second.kind == "final" and second.start < 1.7 and second.end > 3.0
    out = policy.on_decoded(second, [(" Okay.", 0.1, 0.5), (" Friday.", 0.6, 1.3)])
    assert [(e.text, e.utterance, e.utterance_end) for e in out if isinstance(e, TranscriptFinal)] == [
        ("Okay. Friday.", 2, True)
    ]


# --- overlapped decodes and the settled last word -----------------------------------------


def test_a_second_step_overlaps_only_when_asked_and_never_a_pause_or_an_end():
    policy = StreamingTranscriber(step_s=0.25, min_decode_s=0.3)
    feed_vad(policy, 0.0, 1.0, 0.9)
    first = policy.next_decode()
    feed_vad(policy, 1.0, 1.3, 0.9)
    assert policy.next_decode() is None  # the engine has no spare worker
    second = policy.next_decode(overlap=True)
    assert second is not None and second.kind == "step" and second.overlapped and second.end > first.end
    assert policy.next_decode(overlap=True) is None  # two at most
    policy.on_decoded(first, [(" Alice", 0.0, 0.4), (" will", 0.4, 0.7)])
    feed_vad(policy, 1.3, 1.6, 0.0)  # a pause: its decode waits for the running step
    assert policy.next_decode(overlap=True) is None
    policy.on_decoded(second, [(" Alice", 0.0, 0.4), (" will", 0.4, 0.7), (" send", 0.7, 1.1)])
    assert policy.next_decode(overlap=True).kind == "pause"


def overlapped_steps(first_at: float, second_at: float) -> tuple[StreamingTranscriber, DecodeRequest, DecodeRequest]:
    """A policy with two steps running: one asked for at ``first_at`` s of speech, one at ``second_at``."""
    policy = StreamingTranscriber(step_s=0.25, min_decode_s=0.3)
    feed_vad(policy, 0.0, first_at, 0.9)
    first = policy.next_decode()
    feed_vad(policy, first_at, second_at, 0.9)
    return policy, first, policy.next_decode(overlap=True)


def test_a_decode_overtaken_by_a_later_one_is_ignored():
    """Two workers may finish out of order: the older hypothesis must not replace the newer one."""
    policy, older, newer = overlapped_steps(1.0, 1.6)
    policy.on_decoded(newer, [(" Alice", 0.0, 0.4), (" will", 0.4, 0.7), (" send", 0.7, 1.1)])
    assert policy.on_decoded(older, [(" Alice", 0.0, 0.4), (" wheel", 0.4, 0.7)]) == []
    assert [w.key for w in policy.agreement.hypothesis] == ["alice", "will", "send"]
    assert not policy._in_flight


def test_an_overlapped_decode_of_a_window_that_moved_on_is_ignored():
    policy, first, second = overlapped_steps(3.4, 3.7)
    policy._pending_pause = 3.3  # the first decode heard past a pause: it commits and cuts the window
    spoken = [(" Bob", 0.2, 0.6), (" agreed", 0.6, 1.4), (" to", 1.5, 1.7), (" send", 1.7, 2.4), (" it.", 2.7, 3.2)]
    out = policy.on_decoded(first, spoken)
    assert [e.text for e in out if isinstance(e, TranscriptFinal)] == ["Bob agreed to send it."]
    assert policy.window_start > second.start
    assert policy.on_decoded(second, spoken + [(" Then", 3.5, 3.6)]) == []


def test_a_last_word_the_audio_went_on_past_is_settled():
    agreement = LocalAgreement()
    agreement.settled_gap = 0.3
    agreement.insert(words(("send", 0.0, 0.3), ("it", 0.3, 0.5)), heard_until=0.9)
    agreed = agreement.insert(words(("send", 0.0, 0.3), ("it", 0.3, 0.5)), heard_until=1.1)
    assert [w.key for w in agreed] == ["send", "it"]  # 0.6 s of audio after "it" and no further word
    agreement = LocalAgreement()
    agreement.settled_gap = 0.3
    agreement.insert(words(("send", 0.0, 0.3), ("it", 0.3, 0.5)), heard_until=0.6)
    agreed = agreement.insert(words(("send", 0.0, 0.3), ("it", 0.3, 0.6)), heard_until=0.7)
    assert [w.key for w in agreed] == ["send"]  # "it" may still be the start of "items"


# --- TranscriptOut ---------------------------------------------------------------


def test_finals_are_numbered_by_utterance_and_the_ended_one_goes_to_revision():
    revisions = Revisions(within_s=3.0)
    out = TranscriptOut(revisions)
    first = out.events(words(("Good", 1.0, 1.3)), words(("morning", 1.3, 1.7)), 1.8, window_start=0.8, language="en")
    assert [type(e) for e in first] == [TranscriptFinal, TranscriptPartial]
    assert (first[0].utterance, first[0].utterance_end, first[1].text) == (1, False, "morning")
    assert out.floor == 0.8  # the window began before the first word: its audio is kept from there
    closing = out.events(words(("morning.", 1.3, 1.7)), [], 2.4, window_start=1.9, language="en", utterance_end=True)
    assert (closing[0].utterance, closing[0].utterance_end, closing[0].text) == (1, True, "morning.")
    assert closing[1].text == ""  # the partial is cleared
    assert revisions.due(2.5).words == tuple(words(("Good", 1.0, 1.3), ("morning.", 1.3, 1.7)))
    assert (out.utterance, out.words, out.floor) == (2, [], None)
    # An unchanged partial is not sent again.
    assert out.events([], [], 2.5, window_start=2.4, language="en") == []
