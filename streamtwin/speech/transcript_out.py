"""What the streaming policy's commits become: numbered ``transcript.final`` events and the live partial.

:class:`~streamtwin.speech.agreement.StreamingTranscriber` decides which words are committed and when
an utterance ends; this class only turns that into events.  Every final carries the number of the
utterance it belongs to; the last final of an utterance has ``utterance_end`` set (it may carry no
words when everything was already committed at a pause), and the ended utterance goes to
:class:`~streamtwin.speech.revision.Revisions` for its second reading.  A partial is sent only when the
tentative text changed.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

from streamtwin.events import Event, TranscriptFinal, TranscriptPartial
from streamtwin.speech.hypotheses import Word, join_words
from streamtwin.speech.revision import Revisions


class TranscriptOut:
    def __init__(self, revisions: Revisions) -> None:
        self.revisions = revisions
        self.utterance = 1  # number of the utterance being transcribed
        self.words: list[Word] = []  # committed in the current utterance
        self.floor: float | None = None  # the earliest audio kept for it (for its revision)
        self._partial_text = ""

    def note_floor(self, committed: list[Word], window_start: float) -> None:
        """The utterance's first commit: its audio is kept from here (the window may move on)."""
        if committed and self.floor is None:
            self.floor = min(window_start, committed[0].start)

    def events(
        self, committed: list[Word], tentative: list[Word], media_end: float, *, window_start: float,
        language: str, utterance_end: bool = False,
    ) -> list[Event]:
        """The final for ``committed`` (if any, or if the utterance ends) and the partial for ``tentative``."""
        out: list[Event] = []
        if committed or utterance_end:
            self.note_floor(committed, window_start)
            self.words += committed
            first = committed[0].start if committed else media_end
            last = committed[-1].end if committed else media_end
            out.append(
                TranscriptFinal(
                    text=join_words(committed),
                    start=round(first, 3),
                    end=round(last, 3),
                    words=[[w.text.strip(), round(w.start, 3), round(w.end, 3)] for w in committed],
                    utterance=self.utterance,
                    utterance_end=utterance_end,
                    language=language,
                    media_time=round(media_end, 3),
                )
            )
        if utterance_end:
            if self.floor is not None:
                self.revisions.closed(self.utterance, self.words, language, self.floor)
            self.utterance += 1
            self.words = []
            self.floor = None
        text = join_words(tentative)
        if text != self._partial_text:
            self._partial_text = text
            start = tentative[0].start if tentative else media_end
            out.append(TranscriptPartial(text=text, start=round(start, 3), media_time=round(media_end, 3)))
        return out
