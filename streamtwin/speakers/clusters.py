"""Who is speaking on a shared microphone: online re-clustering of voice embeddings.

:class:`SpeakerClusters` keeps every stretch of speech it was given (a *segment*: an utterance, or the part of one
that a single voice spoke) with its L2-normalised embedding, and after each new utterance clusters them all again:
average-linkage agglomerative clustering (:func:`agglomerate`) that merges two clusters while their mean
similarity reaches ``threshold`` and is near how alike each one's own segments are (:func:`merge_floor`).  Why
cohesion and not one cut: the same voice is far less alike with itself in real speech (CAM++ on samples/voices/dev:
turns at 0.46-0.83, median 0.69) than in espeak's (0.69-0.92, median 0.83), and two espeak voices (up to 0.73)
sit where one real voice does.  Segments shorter than ``min_new_s`` cannot make a voice of their own (a short embedding is
noisy): they join the voice whose profile (duration-weighted mean) they resemble most, unless they resemble none
(below ``unlike``: different voices' turns sit at 0.03-0.31): then, while recent, they stand as a voice of their own
that a longer turn of theirs keeps, or that goes back to the nearest voice by a merge (a new voice's first turn is
often short, and waiting for 2 s of it labelled most new voices late: docs/benchmarks.md).

Labels ("S1", "S2", ...) stay with their voices: each new cluster takes the old label holding most of its
speech (one to one; the voice that showed a label first counts its speech :data:`STAY` times); a cluster with none
takes a new label, never one used before.  When the evidence moves a past
segment (two labels turn out to be one voice, or a voice splits), :meth:`SpeakerClusters.add` says so in its
:class:`Relabel` list, so the caller can tell everyone (an event), never silently.

Why re-clustering: on real voices a greedy online pass (join the best profile above a threshold, else open a new
speaker) gave one reader three labels and merged others (bench.speaker_sim, dev: 71% of speech right); the
same-voice and different-voice similarities of real people overlap more than espeak's, and an early mistake
could never be undone.

Plain classes: no I/O, no clock; embeddings are numpy vectors passed in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

# Tuned on samples/voices/dev and samples/eval/dev with bench.speaker_sim (docs/benchmarks.md)
DEFAULT_THRESHOLD = 0.45  # two voices never merge below this mean similarity
DEFAULT_MARGIN = 0.6  # ... nor below their cohesion by more than this share of its distance from 1
DEFAULT_PRIOR = 0.6  # how alike a voice heard once is taken to be with itself
DEFAULT_MIN_NEW_S = 2.0
DEFAULT_UNLIKE = 0.3  # a short segment less alike than this with every voice's profile is a voice of its own...
DEFAULT_UNLIKE_UTTERANCES = 3  # ... while it (or one like it) is among the newest this many utterances
UNLIKE_MIN_S = 1.0  # ... when it is this long at least (as a head: less is too little to tell a voice by)
DEFAULT_MAX_SPEAKERS = 8
ONE_CUT = 1e9  # a margin so wide that agglomerate's floor alone decides
STAY = 2.0  # how much more speech another voice needs to take a label from the voice that showed it first
HISTORY = 200  # segments re-clustered at most (~15 min of talk); older ones keep their labels, and a voice heard
# only before them takes part as one pseudo-segment (its profile), so it keeps its label when it comes back


@dataclass
class Speaker:
    label: str
    total: np.ndarray | None = None  # duration-weighted sum of the embeddings of its segments
    seconds: float = 0.0
    members: np.ndarray | None = None  # plain sum of the embeddings of its long segments (a profile counts one)
    count: int = 0

    @property
    def profile(self) -> np.ndarray:
        assert self.total is not None
        return self.total / np.linalg.norm(self.total)

    def cohesion(self, prior: float) -> float:
        """How alike its segments are with each other (mean over pairs), ``prior`` while it has one."""
        if self.members is None or self.count < 2:
            return prior
        return (float(self.members @ self.members) - self.count) / (self.count * (self.count - 1))


@dataclass
class Segment:
    utterance: int
    start: float
    end: float
    embedding: np.ndarray
    label: str = ""

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.start)


@dataclass(frozen=True)
class Known:
    """A voice known before anyone spoke (a profile), or heard only before the re-clustered window: its label is
    kept for it."""

    label: str
    embedding: np.ndarray  # unit length
    seconds: float


@dataclass(frozen=True)
class Relabel:
    """The words of ``utterance`` between ``start`` and ``end`` (media seconds) are now under ``label``."""

    utterance: int
    start: float
    end: float
    label: str
    was: str


@dataclass
class Outcome:
    """What one :meth:`SpeakerClusters.add` decided."""

    labels: list[str]  # one per segment given, in order
    relabels: list[Relabel] = field(default_factory=list)  # earlier segments that changed label
    merged: dict[str, str] = field(default_factory=dict)  # label gone -> the label its voice lives on under
    new: list[str] = field(default_factory=list)  # labels opened by this utterance


class SpeakerClusters:
    def __init__(
        self,
        threshold: float = DEFAULT_THRESHOLD,
        min_new_s: float = DEFAULT_MIN_NEW_S,
        max_speakers: int = DEFAULT_MAX_SPEAKERS,
        margin: float = DEFAULT_MARGIN,
        prior: float = DEFAULT_PRIOR,
        unlike: float = DEFAULT_UNLIKE,
        unlike_utterances: int = DEFAULT_UNLIKE_UTTERANCES,
    ) -> None:
        if max_speakers < 1:
            raise ValueError("max_speakers must be at least 1")
        self.threshold = threshold
        self.min_new_s = min_new_s
        self.max_speakers = max_speakers
        self.margin = margin
        self.prior = prior
        self.unlike = unlike
        self.unlike_utterances = unlike_utterances
        self.speakers: list[Speaker] = []  # the voices present now, in label order
        self.segments: list[Segment] = []
        self._opened = 0  # labels ever opened: a label is never reused
        self._known: list[Known] = []
        self._anchors: list[Known] = []  # voices that take part in the clustering without segments in the window
        self._anchor_groups: dict[str, int] = {}  # anchor label -> its cluster in the latest clustering

    # --- queries ------------------------------------------------------------------------------------

    def speaker(self, label: str) -> Speaker | None:
        return next((s for s in self.speakers if s.label == label), None)

    def match(self, embedding: np.ndarray, newcomers: Sequence[np.ndarray] = ()) -> str:
        """A provisional label for speech still going on (nothing changes): the voice it would join by the
        clustering's own rule (its mean similarity to the voice's segments, against their cohesion), else the
        label a new voice would open (shown at once, confirmed or moved when the utterance ends).  ``newcomers``:
        the new voices the same utterance showed before, in order (they take the next labels, as :meth:`add`
        opens them): speech not unlike one keeps its label; unlike all, it is one more."""
        vector = _unit(embedding)
        fits = []
        for speaker in self.speakers:
            if speaker.members is None or not speaker.count:
                continue
            mean = float(speaker.members @ vector) / speaker.count
            need = merge_floor((speaker.cohesion(self.prior) + self.prior) / 2, self.threshold, self.margin)
            fits.append((mean >= need, mean, speaker.label))
        if fits and (max(fits)[0] or len(self.speakers) >= self.max_speakers):
            return max(fits)[2]
        alike = [k for k, other in enumerate(newcomers) if float(_unit(other) @ vector) >= self.unlike]
        return self.next_label(alike[0] if alike else len(newcomers))

    def next_label(self, after: int = 0) -> str:
        """The label a new voice would open (``after`` others opened first)."""
        return f"S{self._opened + 1 + after}"

    def label_of(self, utterance: int) -> str:
        """The label of an utterance's last segment ("" if unknown)."""
        return next((s.label for s in reversed(self.segments) if s.utterance == utterance), "")

    # --- known voices -------------------------------------------------------------------------------------

    def know(self, embedding: np.ndarray, seconds: float) -> str:
        """A voice known before the session (``--voices``): it gets a label now, kept whoever speaks first."""
        self._opened += 1
        known = Known(f"S{self._opened}", _unit(embedding), seconds)
        self._known.append(known)
        self.speakers.append(Speaker(known.label, known.embedding * seconds, seconds, known.embedding.copy(), 1))
        return known.label

    # --- learning ------------------------------------------------------------------------------------------

    def add(self, utterance: int, spans: list[tuple[float, float, np.ndarray]]) -> Outcome:
        """One utterance's segments ``(start, end, embedding)``: label them, and re-cluster everything heard."""
        if not spans:
            return Outcome([])
        first = len(self.segments)
        self.segments.extend(Segment(utterance, float(a), float(b), _unit(e)) for a, b, e in spans)
        window = self.segments[-HISTORY:]
        before = {id(s): s.label for s in window}
        in_window = {s.label for s in window}
        self._anchors = list(self._known) + [
            Known(s.label, s.profile, s.seconds) for s in self.speakers
            if s.total is not None and s.label not in in_window and all(k.label != s.label for k in self._known)
        ]
        clusters = self._cluster(window)
        opened_before = self._opened
        merged = self._name_clusters(window, clusters)
        self._rebuild_profiles()
        outcome = Outcome([s.label for s in self.segments[first:]], merged=merged)
        outcome.new = [f"S{k}" for k in range(opened_before + 1, self._opened + 1)]
        for segment in window[: len(window) - len(spans)]:
            if before[id(segment)] != segment.label:
                outcome.relabels.append(
                    Relabel(segment.utterance, segment.start, segment.end, segment.label, before[id(segment)])
                )
        return outcome

    def _cluster(self, window: list[Segment]) -> list[int]:
        """A cluster number per segment of ``window``."""
        long = [i for i, s in enumerate(window) if s.duration >= self.min_new_s]
        if not long:
            long = [max(range(len(window)), key=lambda i: window[i].duration)]  # someone must open the first voice
        anchors = self._anchors  # known and dormant voices take part as one pseudo-segment each
        vectors = np.stack([window[i].embedding for i in long] + [k.embedding for k in anchors])
        groups = agglomerate(vectors, self.threshold, self.margin, self.prior, self.max_speakers)
        cluster = [-1] * len(window)
        for row, i in enumerate(long):
            cluster[i] = int(groups[row])
        self._anchor_groups = {k.label: int(groups[len(long) + j]) for j, k in enumerate(anchors)}
        centroids = {}
        for g in set(int(x) for x in groups):
            rows = [row for row, i in enumerate(long) if int(groups[row]) == g]
            members = [window[long[row]] for row in rows]
            total = sum((m.embedding * m.duration for m in members), np.zeros_like(vectors[0]))
            total = total + sum((k.embedding * k.seconds for k in anchors if self._anchor_groups[k.label] == g),
                                np.zeros_like(total))
            centroids[g] = total / (np.linalg.norm(total) or 1.0)
        unlike = [i for i, s in enumerate(window) if cluster[i] == -1 and s.duration >= UNLIKE_MIN_S
                  and max(float(c @ s.embedding) for c in centroids.values()) < self.unlike]
        for g, members in enumerate(self._provisional(window, unlike, len(centroids)), start=max(centroids) + 1):
            for i in members:
                cluster[i] = g
        for i, segment in enumerate(window):
            if cluster[i] == -1:  # short: the most similar voice
                cluster[i] = max(centroids, key=lambda g: float(centroids[g] @ segment.embedding))
        return cluster

    def _provisional(self, window: list[Segment], unlike: list[int], voices: int) -> list[list[int]]:
        """Short segments unlike every voice, grouped by one cut (``unlike``): the groups with one of the newest
        ``unlike_utterances`` utterances stand as voices of their own (a new voice labelled from its first short
        turn); the others, and any past ``max_speakers``, go back to the nearest voice."""
        if not unlike or voices >= self.max_speakers:
            return []
        # among themselves one cut decides: short turns of one reader sit as low as 0.35 (samples/voices/dev)
        groups = agglomerate(np.stack([window[i].embedding for i in unlike]), self.unlike, ONE_CUT, 0.0, len(unlike))
        recent = window[-1].utterance - self.unlike_utterances
        standing = []
        for g in sorted(set(int(x) for x in groups)):
            members = [i for i, x in zip(unlike, groups) if int(x) == g]
            if max(window[i].utterance for i in members) > recent:
                standing.append(members)
        return standing[: self.max_speakers - voices]

    def _name_clusters(self, window: list[Segment], cluster: list[int]) -> dict[str, str]:
        """Give each cluster a label: known voices keep theirs, then the old label holding most of its speech (the
        label's first voice counting its speech :data:`STAY` times)."""
        overlap: dict[tuple[int, str], float] = {}
        for segment, g in zip(window, cluster):
            if segment.label:
                overlap[(g, segment.label)] = overlap.get((g, segment.label), 0.0) + segment.duration
        label_of: dict[int, str] = {}
        for known in self._anchors:
            g = self._anchor_groups.get(known.label)
            if g is not None and g not in label_of:
                label_of[g] = known.label
        # A label stays with the voice that showed it first unless another now holds more than STAY times its
        # speech under it: a first turn shared by two voices must not hand its label to the second (before this,
        # samples/voices/dev four showed B's "Chapter 35." as S1, then moved it to S2 when D took S1).
        first: dict[str, int] = {}
        for segment, g in zip(window, cluster):
            if segment.label:
                first.setdefault(segment.label, g)

        def claim(g: int, label: str) -> float:
            return overlap[(g, label)] * (STAY if first[label] == g else 1.0)

        # strongest claim first; a tie (to 0.1 s) goes to the older label
        for (g, label) in sorted(overlap, key=lambda gl: (-round(claim(*gl), 1), int(gl[1][1:]))):
            if g not in label_of and label not in label_of.values():
                label_of[g] = label
        for g in sorted(set(cluster), key=cluster.index):
            if g not in label_of:
                self._opened += 1
                label_of[g] = f"S{self._opened}"
        old = {s.label for s in window if s.label}
        for segment, g in zip(window, cluster):
            segment.label = label_of[g]
        merged = {}
        for label in sorted(old - set(label_of.values())):
            into = max((g for g, l0 in overlap if l0 == label), key=lambda g: overlap[(g, label)])
            merged[label] = label_of[into]
        return merged

    def _rebuild_profiles(self) -> None:
        """Speakers = the labels in use (known voices always); profiles from the segments."""
        by_label = {s.label: s for s in self.speakers}
        labels = sorted({s.label for s in self.segments} | {k.label for k in self._known}, key=lambda x: int(x[1:]))
        speakers = []
        for label in labels:
            speaker = by_label.get(label) or Speaker(label)
            known = next((k for k in self._known if k.label == label), None)
            speaker.total = known.embedding * known.seconds if known else None
            speaker.seconds = known.seconds if known else 0.0
            speaker.members, speaker.count = (known.embedding.copy(), 1) if known else (None, 0)
            speakers.append(speaker)
        index = {s.label: s for s in speakers}
        for segment in self.segments:
            speaker = index[segment.label]
            weight = max(segment.duration, 0.1)
            part = segment.embedding * weight
            speaker.total = part if speaker.total is None else speaker.total + part
            speaker.seconds += segment.duration
            if segment.duration >= self.min_new_s or speaker.count == 0:
                e = segment.embedding
                speaker.members, speaker.count = (e.copy() if speaker.members is None else speaker.members + e,
                                                  speaker.count + 1)
        self.speakers = speakers


def _unit(vector: np.ndarray) -> np.ndarray:
    vector = np.asarray(vector, dtype=np.float64)
    norm = np.linalg.norm(vector)
    if not np.isfinite(norm) or norm == 0:
        raise ValueError("a speaker embedding must be a non-zero finite vector")
    return vector / norm


def merge_floor(cohesion: float | np.ndarray, floor: float, margin: float) -> float | np.ndarray:
    """The least mean similarity at which two clusters whose own segments are ``cohesion`` alike may merge:
    ``floor``, or ``margin`` times the cohesion's distance from 1 below it.  A voice whose segments are less
    alike with each other (real speech, short turns) also strays further from itself; one whose segments are
    nearly identical (a synthetic voice) is told apart from a similar one by a small gap."""
    return np.maximum(floor, cohesion - margin * (1 - cohesion))


def agglomerate(vectors: np.ndarray, floor: float, margin: float, prior: float, max_groups: int) -> np.ndarray:
    """Average-linkage clustering of unit vectors that stops by cohesion: two clusters merge when their mean
    similarity reaches :func:`merge_floor` of how alike each one's own members are (``prior`` for a cluster of
    one); past ``max_groups`` clusters the closest two merge anyway.  Returns a group number (1, 2, ...) per vector.
    Each merge updates one row and column (400 segments: tens of milliseconds)."""
    n = len(vectors)
    sums = vectors @ vectors.T  # sum of the similarities between two clusters' members
    np.fill_diagonal(sums, 0.0)
    sizes = np.ones(n)
    within = np.zeros(n)  # sum of the similarities of each cluster's member pairs
    cohesion = np.full(n, prior)
    active = np.ones(n, dtype=bool)
    mean = sums.copy()  # mean similarity between two live clusters (-inf elsewhere)
    np.fill_diagonal(mean, -np.inf)
    score = np.where(mean >= merge_floor(prior, floor, margin), mean, -np.inf)  # mean where a merge is allowed
    members = [[i] for i in range(n)]
    while active.sum() > 1:
        flat = int(np.argmax(score))
        if score.flat[flat] == -np.inf:
            if active.sum() <= max_groups:
                break
            flat = int(np.argmax(mean))  # too many voices: the closest two merge anyway
        a, b = divmod(flat, n)
        within[a] += within[b] + sums[a, b]
        sums[a, :] += sums[b, :]
        sums[:, a] = sums[a, :]
        sizes[a] += sizes[b]
        members[a] += members[b]
        cohesion[a] = within[a] / (sizes[a] * (sizes[a] - 1) / 2)
        active[b] = False
        row = np.where(active, sums[a] / (sizes[a] * sizes), -np.inf)
        row[a] = -np.inf
        allowed = np.where(row >= merge_floor((cohesion[a] + cohesion) / 2, floor, margin), row, -np.inf)
        for matrix, values in ((mean, row), (score, allowed)):
            matrix[b, :] = matrix[:, b] = -np.inf
            matrix[a, :] = matrix[:, a] = values
    groups = np.zeros(n, dtype=int)
    for g, k in enumerate(np.flatnonzero(active), start=1):
        groups[members[k]] = g
    return groups
