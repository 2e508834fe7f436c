"""Who is speaking on a shared microphone: online clustering of voice embeddings, and names.

:class:`SpeakerClusters` turns one L2-normalised voice embedding per utterance into a label
("S1", "S2", ...).  Each speaker is a running mean of the embeddings given to them.  An utterance
joins the most similar speaker when the cosine similarity reaches ``threshold`` (0.85: distinct
espeak voices sit at 0.6-0.85 from each other, the same voice at 0.9 and above, see NOTES.md).
Below it, a new speaker is opened only from an utterance of ``min_new_s`` seconds or more (a short
one gives a noisy embedding) and only while fewer than ``max_speakers`` exist; otherwise the
utterance goes to the best match.  Short utterances never move a profile.

:class:`SpeakerNames` finds a speaker naming themselves ("Priya here", "I'm Tom", "my name is
Sarah", "this is Dan speaking") in what they said.

Plain classes: no I/O, no clock; embeddings are numpy vectors passed in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

DEFAULT_THRESHOLD = 0.85
DEFAULT_MIN_NEW_S = 2.0
DEFAULT_MAX_SPEAKERS = 8


@dataclass
class Speaker:
    label: str
    total: np.ndarray  # sum of the embeddings that shaped the profile
    count: int
    name: str = ""

    @property
    def profile(self) -> np.ndarray:
        return self.total / np.linalg.norm(self.total)


@dataclass(frozen=True)
class Assignment:
    label: str
    similarity: float  # to the profile it joined (1.0 for a new speaker)
    new: bool


class SpeakerClusters:
    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        min_new_s: float = DEFAULT_MIN_NEW_S,
        max_speakers: int = DEFAULT_MAX_SPEAKERS,
    ) -> None:
        if max_speakers < 1:
            raise ValueError("max_speakers must be at least 1")
        self.threshold = threshold
        self.min_new_s = min_new_s
        self.max_speakers = max_speakers
        self.speakers: list[Speaker] = []

    def best(self, embedding: np.ndarray) -> tuple[Speaker | None, float]:
        """The most similar speaker and the cosine similarity, or (None, -1) before anyone spoke."""
        if not self.speakers:
            return None, -1.0
        vector = _unit(embedding)
        similarities = [float(speaker.profile @ vector) for speaker in self.speakers]
        index = int(np.argmax(similarities))
        return self.speakers[index], similarities[index]

    def match(self, embedding: np.ndarray) -> str:
        """A provisional label (nothing changes): the best match if it clears the threshold, else ""
        (the voice may be a new one, which only the whole utterance can open)."""
        speaker, similarity = self.best(embedding)
        return speaker.label if speaker is not None and similarity >= self.threshold else ""

    def assign(self, embedding: np.ndarray, duration_s: float) -> Assignment:
        """Label one whole utterance of ``duration_s`` seconds and learn from it."""
        vector = _unit(embedding)
        speaker, similarity = self.best(vector)
        long_enough = duration_s >= self.min_new_s
        if speaker is None or (
            similarity < self.threshold and long_enough and len(self.speakers) < self.max_speakers
        ):
            # The very first utterance opens S1 whatever its length: there is nobody to match yet.
            speaker = Speaker(f"S{len(self.speakers) + 1}", vector.copy(), 1)
            self.speakers.append(speaker)
            return Assignment(speaker.label, 1.0, True)
        if long_enough:
            speaker.total = speaker.total + vector
            speaker.count += 1
        return Assignment(speaker.label, similarity, False)

    def name_of(self, label: str) -> str:
        return next((s.name for s in self.speakers if s.label == label), "")

    def set_name(self, label: str, name: str) -> None:
        for speaker in self.speakers:
            if speaker.label == label:
                speaker.name = name

    def introduce(self, assignment: Assignment, name: str) -> bool:
        """The utterance labelled by ``assignment`` said the speaker's name: it sticks to that voice only
        if the utterance surely was that voice (a new speaker, or a match at the threshold; a short
        utterance's best match is a guess) and the voice has no name yet (the first one holds: a
        misheard "And here." must not rename anyone).  Returns whether it stuck."""
        speaker = next((s for s in self.speakers if s.label == assignment.label), None)
        sure = assignment.new or assignment.similarity >= self.threshold
        if speaker is None or speaker.name or not name or not sure:
            return False
        speaker.name = name
        return True


def _unit(vector: np.ndarray) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float64)
    norm = np.linalg.norm(vector)
    if not np.isfinite(norm) or norm == 0:
        raise ValueError("a speaker embedding must be a non-zero finite vector")
    return vector / norm


# --- names ------------------------------------------------------------------------------------------

_NAME = r"(?P<name>[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)"
# Words that follow "I'm" / "this is" capitalised without being a name ("I'm Sorry", "This is Monday").
_NOT_A_NAME = frozenset(
    """i okay ok sorry sure fine glad happy afraid not just here back done ready going still also really so very
    good great well right new the a an it this that there what who how why when where monday tuesday wednesday
    thursday friday saturday sunday january february march april may june july august september october november
    december english american british assistant everyone everybody hello hi hey yes no thanks thank and but or
    nor then now over out up down in on off come look get go see click sign wait stop hold listen please thinking
    working talking calling speaking coming leaving still only even maybe probably""".split()
)
_PATTERNS = (
    re.compile(rf"\b(?i:my name is|my name's)\s+{_NAME}"),
    re.compile(rf"(?:^|[.!?]\s+|,\s*)(?i:i'm|i am)\s+{_NAME}(?=[,.!?]|\s+(?i:here|speaking|and|from|with)\b|$)"),
    re.compile(rf"(?:^|[.!?,]\s*|\b(?i:hi|hello|hey|yes|okay|ok)\s+)(?i:this is)\s+{_NAME}(?=[,.!?]|\s+(?i:here|speaking)\b|$)"),
    re.compile(rf"(?:^|[.!?]\s+|\b(?i:hi|hello|hey|yes|okay|ok),?\s+){_NAME}\s+(?i:here|speaking)\b"),
)


class SpeakerNames:
    """Finds the name a speaker gives themselves in one utterance."""

    @staticmethod
    def introduced(text: str) -> str:
        """"Priya here, ..." -> "Priya"; "" when the utterance names nobody as its speaker."""
        text = " ".join(text.split())
        for pattern in _PATTERNS:
            for match in pattern.finditer(text):
                name = match.group("name")
                if name.lower() not in _NOT_A_NAME:
                    return name
        return ""
