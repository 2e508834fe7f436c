"""Heads (streamtwin/speakers/heads.py): which first second of announced speech to embed, and whose it is."""

import numpy as np
import pytest

from streamtwin.speakers.heads import Heads


def test_a_head_is_due_after_a_second_of_speech_and_again_as_it_grows_to_a_partial():
    heads = Heads()
    assert heads.due(10.0) is None and not heads.waiting  # nothing announced
    heads.announced(8.0)
    assert heads.waiting and heads.due(8.9) is None  # under a second heard
    assert heads.due(9.0) == (8.0, 1.0)
    heads.embedded(8.0, 1.0, np.ones(3))
    assert heads.due(9.2) is None  # not 0.3 s more yet
    assert heads.due(9.35) == (8.0, pytest.approx(1.35))
    heads.embedded(8.0, 1.6, np.ones(3))
    assert heads.due(20.0) is None  # a whole partial's length: the partials take over


def test_a_head_belongs_to_the_utterance_it_begins():
    heads = Heads()
    heads.announced(8.0)
    heads.embedded(8.0, 1.0, np.full(3, 2.0))
    assert heads.opened(12.0) is None and not heads.waiting  # another utterance: not its head
    heads.announced(20.0)
    heads.embedded(20.0, 1.2, np.full(3, 5.0))
    assert heads.opened(20.3)[0] == 5.0  # its first word 0.3 s after the speech was announced
