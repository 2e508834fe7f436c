from streamtwin.utterances import UtteranceGrouper


def texts(utterances):
    return [u.text for u in utterances]


def test_numbered_fragments_group_by_utterance_and_close_at_its_end():
    grouper = UtteranceGrouper()
    assert grouper.add("Carol, please fix", 0.0, 1.0, utterance=1) == []
    assert grouper.add("the search page", 1.0, 2.0, utterance=1) == []
    done = grouper.add("by Wednesday.", 2.0, 3.0, utterance=1, utterance_end=True)
    assert texts(done) == ["Carol, please fix the search page by Wednesday."]
    assert (done[0].start, done[0].end, done[0].fragments, done[0].key) == (0.0, 3.0, 3, 1)
    assert grouper.last_key == 1 and grouper.pending_text == ""


def test_a_new_utterance_number_closes_the_open_one_even_without_an_end_mark():
    grouper = UtteranceGrouper()
    grouper.add("Good morning.", 0.0, 1.0, utterance=1)
    # numbered producers are trusted over time gaps: no gap split inside utterance 2
    assert texts(grouper.add("Let's start", 5.0, 6.0, utterance=2)) == ["Good morning."]
    assert grouper.add("the meeting", 9.0, 10.0, utterance=2) == []
    assert texts(grouper.flush()) == ["Let's start the meeting"]


def test_without_numbers_a_gap_longer_than_the_threshold_starts_a_new_utterance():
    grouper = UtteranceGrouper(gap_s=0.6)
    assert grouper.add("Steve will do that because he", 35.9, 37.8) == []
    assert grouper.add("knows the building manager.", 37.8, 39.1) == []  # no gap: same utterance
    done = grouper.add("Fine.", 40.4, 40.8)
    assert texts(done) == ["Steve will do that because he knows the building manager."]
    assert grouper.pending_text == "Fine."


def test_without_numbers_a_question_closes_at_once_and_a_partial_after_a_gap_closes_too():
    grouper = UtteranceGrouper()
    assert texts(grouper.add("Who cleans the old office?", 29.7, 31.2)) == ["Who cleans the old office?"]
    grouper.add("Assistant who hires", 52.8, 54.5)
    grouper.add("the cleaning company.", 54.5, 55.5)
    assert grouper.on_speech(55.8) == []  # too soon to say
    assert texts(grouper.on_speech(56.5)) == ["Assistant who hires the cleaning company."]
    assert grouper.flush() == []


def test_keys_count_utterances_in_order_and_empty_finals_only_close():
    grouper = UtteranceGrouper()
    first = grouper.add("One.", 0.0, 1.0, utterance=4, utterance_end=True)
    grouper.add("Two", 2.0, 3.0, utterance=5)
    second = grouper.add("", 3.0, 3.0, utterance=5, utterance_end=True)
    assert [u.key for u in first + second] == [1, 2] and texts(second) == ["Two"]


def test_an_utterance_takes_the_speaker_of_its_last_final():
    grouper = UtteranceGrouper()
    grouper.add("I will fix", 0.0, 1.0, utterance=1, speaker="S2")  # the best match so far
    done = grouper.add("the tests.", 1.0, 2.0, utterance=1, utterance_end=True, speaker="Tom")  # the label
    assert (done[0].text, done[0].speaker) == ("I will fix the tests.", "Tom")
    assert grouper.add("Good.", 3.0, 3.5, utterance=2, utterance_end=True)[0].speaker == ""
