"""A session-long index of what was heard: the evidence twin claims are checked against.

The context window evicts old blocks (and folds them into a summary), so
grounding a claim against the window alone forgets: people and action items
whose evidence scrolled out would be pruned as invented.  This index keeps the
words of every utterance for the whole session, and the utterances themselves
(a long meeting is a few hundred kilobytes of text), so an answer can quote them.

Plain class: no I/O, no clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from streamtwin.twin import phrasings as say

_STOPWORDS = frozenset(
    """the and for are but not you all any can had her was one our out has him his how its may new now old see
    two who did get let put say she too use that this with have from they will would there their what about which
    when make like time just know take into year your some could them than then look only come over also back
    after work first well even want because these give most very should been were said each much does here
    need needs please yes okay right thing things going gonna been being also still whole""".split()
)
_COMPLETION_WORDS = frozenset(
    "done finished completed complete cancel cancelled canceled drop dropped resolved answered closed".split()
)
# Owner values that name nobody: a task with one of these has no owner yet.
UNASSIGNED = "unassigned"
_NOBODY = frozenset(
    "unassigned none nobody unknown n/a na tbd everyone all team we us i me you they someone somebody".split()
)
# Speech recognition capitalises every sentence's first word, so a capital there proves nothing ("Ring, please
# fix the bug" for a misheard "Greg,").  A word is a name when the conversation uses it as one: heard
# capitalised inside a sentence ("thanks, Priya"), said to someone ("Ravi, can you ..."), given as a name
# ("my name is Xin"), a speaker's or participant's name, or after a title ("Professor Hill").
_TITLES = frozenset("professor prof doctor dr mr mrs ms miss sir madam".split())
_INSIDE_A_SENTENCE = re.compile(rf"(?<=[^\W_] |[,;] ){say.WORD}")
_AS_A_NAME = (say.VOCATIVE, say.LATE_VOCATIVE, say.GREETED, say.INTRODUCED, say.LATE_REQUEST, say.CALLED, say.NAME_WILL,
              say.NAME_TO)
# A line that takes something on: "Sure, I'll ...", "Yes, I can ...", "I will ...".
_REPLY = re.compile(r"\b(?:i will|i'll|i can|i am going to|i'm going to|will do|sure|yes|okay|ok)\b", re.IGNORECASE)
# A context line's media time and speaker ("[9.1s] Tom: ..."): the speaker is a name, the rest is what was said.
_LINE_HEAD = re.compile(rf"^(?:\[[\d.]+s\]\s*)?(?:(?P<speaker>{say.NAME}):\s+)?")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def key_words(text: str) -> set[str]:
    """Content words, crudely stemmed: what a claim must share with the transcript."""
    return {_stem(w) for w in re.findall(r"[^\W_]+", text.lower()) if len(w) >= 3 and w not in _STOPWORDS}


def support(claim: str, vocabulary: set[str]) -> float:
    """Fraction of the claim's key words found in ``vocabulary`` (0 for a claim with none)."""
    words = key_words(claim)
    return len(words & vocabulary) / len(words) if words else 0.0


def jaccard(a: set[str], b: set[str]) -> float:
    """How alike two sets of words are: shared over all (1.0 for two empty sets)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def overlap(a: set[str], b: set[str]) -> float:
    """Shared words over the shorter side's: 1.0 when one says all the other says (0 when either is empty)."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def name_tokens(name: str) -> list[str]:
    return re.findall(r"[^\W_]+", re.sub(r"'s\b", "", name.lower()))


def names_nobody(owner: str) -> bool:
    """An empty or placeholder owner ("", "unassigned", "team", "me", ...)."""
    return not owner.strip() or owner.strip().lower() in _NOBODY


@dataclass(frozen=True)
class _Line:
    """One line heard, as the owner check reads it."""

    by: set[str]  # its speaker's name, as tokens (empty when unknown)
    voice: str  # the label of its voice when only that is known ("S2")
    tokens: set[str]  # every word
    words: set[str]  # key words
    reply: bool  # takes something on: "Sure, I'll ...", "Yes, I can ..."
    thanks: bool  # "Thanks, Anna."


class HeardIndex:
    """Every word heard (and seen) this session; nothing is ever evicted."""

    def __init__(self) -> None:
        self.vocabulary: set[str] = set()  # key words, for claims
        self._tokens: set[str] = set()  # every word as heard, for names
        self._proper: set[str] = set()  # words heard capitalised inside a sentence
        self.completion_lines: list[set[str]] = []  # key words of lines that say something is done
        self.lines: list[str] = []
        self._said: list[_Line] = []
        self._voices: dict[str, str] = {}  # a voice's label -> the name it is known by now
        self._restated: dict[str, str] = {}  # a task restated to stand alone -> the words it was said in

    @classmethod
    def of(cls, text: str) -> HeardIndex:
        index = cls()
        for line in text.splitlines():
            index.add(line)
        return index

    def add(self, text: str, speaker: str = "", voice: str = "") -> None:
        """One line heard; ``speaker``: the name of who said it, when the session knows it (a participant's
        name, a voice's), which is a name whatever the words say; ``voice``: the label of a voice not known
        by name ("S2"), no evidence of anyone's name, but who said the line once the voice is named."""
        self.lines.append(text)
        self._tokens.update(name_tokens(speaker))
        self._proper.update(name_tokens(speaker))
        words = key_words(text)
        self.vocabulary |= words
        self._tokens.update(name_tokens(text))
        head = _LINE_HEAD.match(text)
        said = text[head.end():] if head else text
        if head and head.group("speaker"):
            self._proper.update(name_tokens(head.group("speaker")))
        by = set(name_tokens(speaker or (head.group("speaker") or "" if head else "")))
        self._said.append(_Line(by, voice, set(name_tokens(said)), key_words(said), bool(_REPLY.search(said)),
                                bool(say.THANKED.match(said))))
        self._proper.update(word.lower() for word in _INSIDE_A_SENTENCE.findall(said))
        for sentence in say.sentences(said):
            for pattern in _AS_A_NAME:
                match = pattern.search(sentence)
                for name in say.names([match.group("name")] if match else []):
                    self._proper.update(name_tokens(name))
        if set(re.findall(r"[a-z]+", text.lower())) & _COMPLETION_WORDS:
            self.completion_lines.append(words)

    def mentions(self, name: str) -> bool:
        """Was this person named?  Every word of the name must have been heard, and heard as a name."""
        tokens = name_tokens(name)
        return bool(tokens) and not names_nobody(name) and all(token in self._tokens for token in tokens) \
            and (tokens[0] in _TITLES or any(t in self._proper for t in tokens))

    def owner_said_with(self, owner: str, task: str) -> bool:
        """Was ``owner`` tied to ``task`` by what was said?  Some line that says the task (half its key words)
        is theirs (they said it) or names them ("Carol, please fix ...", "Tom will ..."), or answers a line
        that names them ("Carol, can you ...?" - "Sure, I'll fix ..."), is thanked by name right after
        ("I'll ask the admin team." - "Thanks, Anna.") or taken on by them right after ("Can someone ...?" -
        "I'll do it.", or a line later by its name: "I'll take the rota.").  A name heard elsewhere in the meeting
        ties nobody.  A task restated to stand alone is judged by the words it was said in."""
        name = set(name_tokens(owner))
        words = key_words(self._restated.get(task, task))
        if not name or not words:
            return bool(name)
        for index, line in enumerate(self._said):
            if len(words & line.words) / len(words) < 0.5:
                continue
            before = self._said[index - 1] if index > 0 else None
            after = self._said[index + 1] if index + 1 < len(self._said) else None
            asked = before is not None and line.reply and name <= before.tokens
            thanked = after is not None and after.thanks and name <= after.tokens
            volunteered = after is not None and after.reply and self._said_by(after, name)
            taken = any(later.reply and self._said_by(later, name) and words & later.words  # "I'll take the rota."
                        for later in self._said[index + 2 : index + 3])
            if self._said_by(line, name) or name <= line.tokens or asked or thanked or volunteered or taken:
                return True
        return False

    def restated(self, task: str, said: str) -> None:
        """``task`` is ``said`` restated to stand alone ("ring the council about the suspension" for "ring them"):
        who it belongs to is judged by the words that were said."""
        self._restated[task] = said

    def _said_by(self, line: _Line, name: set[str]) -> bool:
        return name <= line.by or (bool(line.voice) and name <= set(name_tokens(self._voices.get(line.voice, ""))))

    def name_voice(self, label: str, name: str) -> None:
        """The voice labelled ``label`` is known as ``name`` now: the lines it said are that person's."""
        self._voices[label] = name

    def know(self, name: str) -> None:
        """A person known before they are heard (``--participants``): a name, said or not."""
        self._proper.update(name_tokens(name))
        self._tokens.update(name_tokens(name))
