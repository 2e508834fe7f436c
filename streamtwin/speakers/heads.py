"""Heads: the first 1-1.6 s of speech that transcript partials announce, embedded before any final opens its
utterance, so that even an utterance's first final carries a speaker label (a new voice's within about a second
and a half of its first word).

Plain class: numpy arrays passed in, no I/O, no clock; the speaker stage embeds what :meth:`Heads.due` asks for.
"""

from __future__ import annotations

import numpy as np

from streamtwin.speakers.turns import PARTIAL_S

HEAD_MIN_S = 1.0  # the head of an utterance is embedded once this much of its speech is heard...
HEAD_STEP_S = 0.3  # ... and again every time this much more is, up to a partial's length
HEAD_ALIGN_S = 0.5  # a head belongs to the utterance whose first word starts this close to it


class Heads:
    def __init__(self) -> None:
        self._heard: float | None = None  # where speech the partials show began, before a final opened it
        self._newest: tuple[float, float, np.ndarray] | None = None  # (start, seconds, embedding)

    @property
    def waiting(self) -> bool:
        """Speech was announced and no final has opened its utterance yet."""
        return self._heard is not None

    def announced(self, start: float) -> None:
        """A partial with words while no utterance is open: speech began at ``start`` (media seconds)."""
        self._heard = start

    def due(self, audio_end_s: float) -> tuple[float, float] | None:
        """(start, seconds) of the head to embed now, when enough more of it was heard since the last one."""
        if self._heard is None:
            return None
        heard = min(audio_end_s - self._heard, PARTIAL_S)
        same = self._newest is not None and abs(self._newest[0] - self._heard) < HEAD_STEP_S
        have = self._newest[1] if same else 0.0
        if heard < HEAD_MIN_S or heard < have + HEAD_STEP_S:
            return None
        return self._heard, heard

    def embedded(self, start: float, seconds: float, embedding: np.ndarray) -> None:
        self._newest = (start, seconds, embedding)

    def opened(self, start: float) -> np.ndarray | None:
        """An utterance opened at ``start``: nothing waits any more; its head, if the newest is its beginning."""
        self._heard = None
        return self.of(start)

    def of(self, start: float) -> np.ndarray | None:
        """The newest head, if it is the beginning of the utterance that starts at ``start``."""
        if self._newest is not None and abs(self._newest[0] - start) <= HEAD_ALIGN_S:
            return self._newest[2]
        return None
