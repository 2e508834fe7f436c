"""Answers to questions asked aloud: what kind of question, is the answer fit to show,
and an answer composed from the twin when the model's is not.

A small model answering on a CPU tends to repeat its previous answer, continue the
transcript, or name people nobody mentioned.  An answer is therefore checked before
anyone sees it; list questions (action items, decisions, open questions, who owns
what) can always be answered from the twin, which the verifier keeps grounded.

Plain module: no I/O, no clock.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

from streamtwin.twin.due import DATE, says_when
from streamtwin.twin.heard import UNASSIGNED, HeardIndex, key_words, name_tokens, names_nobody, support

ACTION_ITEMS = "action_items"
DECISIONS = "decisions"
OPEN_QUESTIONS = "open_questions"

# Asked many ways: "what's still up in the air?", "what haven't we decided yet?", "any loose ends?"; "what did we
# agree on?", "where did we end up on pricing?"; "who's doing what?", "what are the follow-ups?".
_KINDS = (
    (OPEN_QUESTIONS, re.compile(
        r"\bopen questions?\b|\bunresolved\b|\bunanswered\b|\bstill open\b|\bup in the air\b|\bloose ends?\b|"
        r"\bundecided\b|\bhaven't (?:we )?(?:decided|settled|agreed)|\bnot (?:yet )?(?:decided|settled)\b|"
        r"\b(?:still )?(?:need|have) to (?:figure|work|find) out\b|\bquestions? (?:are |is )?(?:left|remaining)\b")),
    (DECISIONS, re.compile(
        r"\bdecid|\bdecision|\bagreed\b|\bagree on\b|\bsettle(?:d)? on\b|\bwhat (?:have|did) we settled?\b|"
        r"\bland(?:ed)? on\b|\bend(?:ed)? up (?:on|with)\b|\bconclu(?:de|ded|sion)|"
        r"\boutcomes?(?: of (?:this|the) (?:meeting|call|discussion))?\??$")),
    (ACTION_ITEMS, re.compile(
        r"\baction (?:items?|points?)\b|\bto-?dos?\b|\btasks?\b|\bnext steps?\b|\bfollow-?ups?\b|"
        r"\bwho (owns|is responsible|is doing|does what)\b|\bwho(?:'s| is) doing what\b|\bsign(?:ed)? up for\b|"
        r"\bwhat (?:do|does|should|must) (?:we|everyone|everybody|each of us|people) (?:each |all )?"
        r"(?:have|need) to do\b")),
)
# A window's marks: times, sources, headings, and a voice's label opening a line ("S2: No, Friday ...").
_TRANSCRIPT_ECHO = re.compile(r"\[\d+(\.\d+)?s\]|\(assistant\)|\(seen\)|^#+ |^S\d+: ", re.MULTILINE)
# Words any answer may use without the transcript having said them.
_ANSWER_WORDS = key_words(
    "mentioned discussed said asked assigned responsible owner owns question questions answer decided decision "
    "decisions action items item task tasks due date deadline open transcript meeting twin state currently "
    "according none nothing known unknown unassigned yet far also sure"
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n)(\w+)")
NO_ANSWER = "I could not find that in what was said so far."
LEAVES_OUT = "leaves out most of the"
DISAGREES = "disagrees with the twin"


# Number words, so "five days" is checked like "5 days" ("one" is left out: "the first one" counts nothing).
_NUMBER_WORDS = {"zero": "0"} | {word: str(n) for n, word in enumerate(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split(), 2)} | {word: str(10 * n) for n, word in enumerate(
    "thirty forty fifty sixty seventy eighty ninety".split(), 3)}


_NUMBER_KEYS = key_words(" ".join(_NUMBER_WORDS))  # numbers have checks of their own, below


def _numbers(text: str) -> set[str]:
    """The numbers a text says, as digits."""
    lowered = text.lower()
    words = re.findall(r"[a-z]+", lowered)
    return set(re.findall(r"\d+", lowered)) | {_NUMBER_WORDS[w] for w in words if w in _NUMBER_WORDS}


_COUNTED = re.compile(rf"\b(\d[\d,]*|{'|'.join(_NUMBER_WORDS)})(?:st|nd|rd|th)?\s+(?=([a-z]+))")


def _counted(text: str) -> set[tuple[str, str]]:
    """(number as digits, the key word right after it): "six people" -> ("6", "people")."""
    found = set()
    for number, unit in _COUNTED.findall(text.lower()):
        unit_words = key_words(unit)
        if unit_words:
            found.add((number.replace(",", "") if number[0].isdigit() else _NUMBER_WORDS[number], min(unit_words)))
    return found


def worth_retrying(problem: str) -> bool:
    """An answer that leaves out what the twin holds, or contradicts it, is not retried: the answer composed
    from the twin says it at once, where a retry costs another model call (tens of seconds on a CPU)."""
    return not problem.startswith((LEAVES_OUT, DISAGREES))
_QUESTION_ONLY_WORDS = key_words("assistant tell please can could would what who when where which why how")


def question_kind(question: str) -> str | None:
    """The twin list a question asks for (``ACTION_ITEMS``, ``DECISIONS``, ``OPEN_QUESTIONS``), or None."""
    lowered = question.lower()
    return next((kind for kind, pattern in _KINDS if pattern.search(lowered)), None)


def twin_vocabulary(state: dict[str, Any]) -> set[str]:
    words: set[str] = set()
    for item in state.get("action_items", []):
        words |= key_words(" ".join((item["text"], item["owner"], item["due"])))
    for field in (DECISIONS, OPEN_QUESTIONS, "topics"):
        for text in state.get(field, []):
            words |= key_words(text)
    for person in state.get("people", []):
        words |= key_words(person["name"])
    return words


def _action_item_text(item: dict[str, str]) -> str:
    owner = item["owner"] if item["owner"] != UNASSIGNED else "unassigned"
    due = f" (due {item['due']})" if item["due"] else ""
    return f"{owner}: {item['text']}{due}"


def _asked(question: str) -> set[str]:
    return key_words(question) - key_words("assistant action items tasks who owns what")


# A question about someone's tasks: "what is Tom working on?", "what does Tom have to do?", "anything for Priya?",
# "what did Priya take on?", "what's Ana handling?", "Tom's tasks?"
_WORKS_ON = re.compile(r"\b(?:working on|work on|doing|busy with|responsible for|(?:have|has|got|supposed|need|needs) to do|"
                       r"sign(?:ed)? up for|(?:take|takes|took|taken) on|handling|looking after|on the hook for|anything for|"
                       r"'s jobs?|tasks?|to-?dos?|action items?|plate)\b")


def person_asked(question: str, state: dict[str, Any]) -> str:
    """The person of the twin a question names ("what is Tom working on?" -> "Tom"), or ""."""
    said = set(name_tokens(question))
    names = [p["name"] for p in state.get("people", [])] + [i["owner"] for i in state.get(ACTION_ITEMS, [])]
    return next((n for n in names if not names_nobody(n) and set(name_tokens(n)) & said), "")


_WHEN = re.compile(r"\bwhen\b|\bwhat day\b", re.IGNORECASE)
# "How many volunteers do we need?" wants a number said, not the task that mentions volunteers.
_COUNT = re.compile(r"\bhow (?:many|much|far|long|often|old|big)\b", re.IGNORECASE)
# The asker's own tasks: "what did I promise to do?", "what do I have to do?", "what's on my plate?"
_MINE = re.compile(r"\bwhat (?:did|do|have|must|should|shall|will|was) i\b|\bwhat am i\b|\bon my plate\b|"
                   r"\b(?:do|did) i have anything\b|\bwhat's mine\b|\banything for me\b|\bam i doing anything\b|"
                   r"\bmy (?:tasks|action items|to-?dos?|jobs)\b", re.IGNORECASE)


def named_items(question: str, state: dict[str, Any]) -> list[dict[str, str]]:
    """The action items a question is about ("who hires the cleaning company?", "when will the
    router arrive?"): at least half of an item's key words are in the question, or, for a who-question,
    half of the question's in the item ("who is calling pharmacy?" of "call pharmacy about the missing
    antibiotics for bed eight"); or a person's, when it asks what they work on ("what is Tom working on
    today?")."""
    asked = _asked(question)
    who = bool(re.search(r"\bwho\b", question, re.IGNORECASE) or _WHEN.search(question))
    named = [item for item in state[ACTION_ITEMS] if support(item["text"], asked) >= 0.5
             or (who and asked and len(asked & key_words(item["text"])) >= len(asked) / 2)]
    person = set(name_tokens(person_asked(question, state))) if _WORKS_ON.search(question.lower()) else set()
    return named or [item for item in state[ACTION_ITEMS] if person & set(name_tokens(item["owner"]))]


def compose_from_twin(kind: str, state: dict[str, Any], question: str = "") -> str:
    """An answer to a list question made only of what the twin holds; for "who does X"
    questions, the items the question names come alone when there are any."""
    if kind == ACTION_ITEMS:
        chosen = named_items(question, state) or state[ACTION_ITEMS]
        if not chosen:
            return "No action items so far."
        return "Action items: " + "; ".join(_action_item_text(item) for item in chosen) + "."
    label = {DECISIONS: "Decisions", OPEN_QUESTIONS: "Open questions"}[kind]
    entries = state[kind]
    about = _asked(question) - key_words("decide decided decision open question questions still")
    if about and entries:  # "what did we decide about the launch?": the entries about the launch
        entries = [entry for entry in entries if key_words(entry) & about]
    if not entries:
        # About a topic the twin holds nothing on: let what was said answer, not "none so far".
        return "" if about else f"No {label.lower()} so far."
    return f"{label}: " + "; ".join(entry.rstrip(".?") for entry in entries) + "."


def answer_shape(question: str) -> str:
    """How an answer to ``question`` should start: a who-question with the name, a when-question with the
    day, a list question with the list; "" for any other."""
    lowered = question.lower()
    listed = re.search(r"\bwhat (?:are|were) (?:the|our)\b", lowered)
    if question_kind(question) in (ACTION_ITEMS, OPEN_QUESTIONS) or listed:
        return "List them, one short line each (for a task: who, what, by when); nothing else."
    if question_kind(question) == DECISIONS:
        return "Say what was decided, in one sentence; if nothing was decided about it, say so."
    if re.search(r"\bwho\b", lowered):
        return "Start with the name of the person (or people); then at most one short sentence."
    if re.search(r"\bwhen\b|\bwhat (?:day|date|time)\b|\bby when\b", lowered):
        return "Start with the day, date or time; then at most one short sentence."
    return ""


def askers_items(question: str, state: dict[str, Any], asker: str) -> list[dict[str, str]]:
    """The tasks of the one who asks "what did I promise to do?" ([] for any other question, or none of theirs)."""
    if not asker or not _MINE.search(question):
        return []
    return [item for item in state[ACTION_ITEMS] if set(name_tokens(asker)) & set(name_tokens(item["owner"]))]


def twin_answer(question: str, state: dict[str, Any], asker: str = "") -> str:
    """What the twin alone answers ("" when it does not): a list question from its list; a question
    about a task it holds ("who hires ...?", "when will ... arrive?") from that task's owner and due
    date, which the verifier keeps grounded and corrections keep current; "what did I promise?" from
    the ``asker``'s tasks.  A how-many question is left to what was said."""
    kind = question_kind(question)
    mine = askers_items(question, state, asker)
    if kind is None and mine:
        return "Action items: " + "; ".join(_action_item_text(item) for item in mine) + "."
    named = named_items(question, state) if kind is None and not _COUNT.search(question) else []
    if named and (not _WHEN.search(question) or any(item["due"] for item in named)):
        kind = ACTION_ITEMS  # a when-question about a task with no day is left to what was said
    return compose_from_twin(kind, state, question) if kind else ""


class AnswerChecker:
    """Says why an answer must not be shown ("" when it may)."""

    def __init__(self, grounding: float = 0.5, repeat: float = 0.8, coverage: float = 0.75) -> None:
        self.grounding = grounding
        self.repeat = repeat
        self.coverage = coverage

    def problem(
        self, answer: str, question: str, heard: HeardIndex, state: dict[str, Any], earlier: list[str],
        asker: str = "",
    ) -> str:
        text = answer.strip()
        if not text or text == "-":
            return "empty"
        if _TRANSCRIPT_ECHO.search(text):
            return "continues the transcript instead of answering"
        lines = [line.strip() for line in text.splitlines() if len(line.split()) >= 3]
        if len(lines) - len(set(lines)) >= 2:
            return "repeats itself"  # a small model caught in a loop: the same line again and again
        words = key_words(text)
        for previous in earlier:
            before = key_words(previous)
            if words and before and len(words & before) / len(words | before) >= self.repeat:
                return "repeats an earlier answer"
        # What the answer adds to the question must have been said (or be in the twin): "Plants make glucose
        # from carbon dioxide and water" (Qwen 1.5B, lecture) restates the question and adds what nobody said.
        adds = {w for w in words - key_words(question) - _ANSWER_WORDS if w not in _NUMBER_KEYS and not w.isdigit()}
        if adds and len(adds & (heard.vocabulary | twin_vocabulary(state))) / len(adds) < self.grounding:
            return "not grounded in the transcript or the twin"
        known = heard.vocabulary | twin_vocabulary(state) | key_words(question) | _ANSWER_WORDS
        numbers = _numbers(text)
        if not (words - key_words(question) - _ANSWER_WORDS or numbers) and not re.match(r"(yes|no)\b", text.lower()):
            return "only repeats the question"  # "Yes, we are ..." answers a yes/no question; an echo does not
        invented = [n for n in _capitalised(text) if not heard.mentions(n) and not key_words(n) <= known]
        if invented:
            return f"names someone nobody mentioned: {', '.join(invented[:3])}"
        person = person_asked(question, state)
        if person and not set(name_tokens(person)) & set(name_tokens(text)):
            return f"is not about {person}, who was asked about"  # "what is Tom working on?" -> "Mike is ..."
        sources = "\n".join(heard.lines) + "\n" + json.dumps(state) + "\n" + question
        said = _numbers(sources)
        if numbers - said:
            return f"gives a number nobody said: {', '.join(sorted(numbers - said)[:3])}"
        # "6 days a week" from "We are six people ... two days a week": the number was said, of something else.
        counted = _counted(sources)
        for number, unit in sorted(_counted(text) - counted):
            if any(n == number for n, _ in counted):
                return f"says {number} {unit}, but {number} was said of something else"
        kind = question_kind(question)
        mine = askers_items(question, state, asker)
        if mine and not any(_lists(item, ACTION_ITEMS, words, set(name_tokens(text)) | set(name_tokens(asker)))
                            for item in mine):
            return f"{DISAGREES}: it holds what {asker} took on"  # "what did I promise?": none of the asker's tasks
        if kind is None and not _COUNT.search(question):
            disagreement = _disagrees(text, question, named_items(question, state))
            if disagreement:
                return disagreement
        if kind is not None:
            entries = state.get(kind, [])
            if entries:
                said = set(name_tokens(text))
                covered = sum(_lists(entry, kind, words, said) for entry in entries)
                if covered / len(entries) < self.coverage:
                    return f"{LEAVES_OUT} {kind.replace('_', ' ')} the twin holds"
        return ""


def _disagrees(text: str, question: str, items: list[dict[str, str]]) -> str:
    """Why an answer to a who- or when-question about tasks the twin holds is wrong: it names none of their
    owners, or none of their days ("" when it does, or the twin has no owner or day to say)."""
    lowered, said = question.lower(), text.lower()
    owners = [item["owner"] for item in items if not names_nobody(item["owner"])]
    named = set(name_tokens(text))
    if re.search(r"\bwho\b", lowered) and owners and not any(set(name_tokens(o)) & named for o in owners):
        return f"{DISAGREES}: it holds {', '.join(owners[:3])}"
    dues = [item["due"] for item in items if item["due"]]
    if re.search(r"\bwhen\b|\bwhat day\b", lowered) and dues and not any(due.lower() in said for due in dues):
        return f"{DISAGREES}: it holds {', '.join(dues[:3])}"
    return ""


def _lists(entry: Any, kind: str, words: set[str], names: set[str]) -> bool:
    """Does an answer (its key ``words``, its ``names``) list this entry of the twin?  An action item
    with an owner only with the owner: "fix the payment bug" is half of "Greg: fix the payment bug"."""
    if kind != ACTION_ITEMS:
        return support(entry, words) >= 0.5
    owner = entry["owner"]
    return support(entry["text"], words) >= 0.5 and (names_nobody(owner) or set(name_tokens(owner)) <= names)


def _capitalised(text: str) -> list[str]:
    """Capitalised words that do not start a sentence: names, as a small model writes them."""
    starts = {match.start(1) for match in _SENTENCE_START.finditer(text)}
    found = []
    for match in re.finditer(r"\b[A-Z][a-z]{2,}\b", text):
        if match.start() not in starts and name_tokens(match.group()) and match.group() not in found:
            found.append(match.group())
    return found


_WHEN = re.compile(r"\b(?:when|what (?:date|day|time)|which (?:date|day)|by when|how soon)\b", re.IGNORECASE)


def quote_answer(question: str, heard: HeardIndex, addressed: Callable[[str], bool]) -> str:
    """The utterance that shares most content words with the question, quoted ("" if none does).

    Without a model (or when its answers failed the check) the honest answer to
    "when will the router arrive?" is what was said about the router.  Among lines as close,
    a statement beats a question, a "when" question wants a line that names a day, a "how many" one a number."""
    wanted = key_words(question) - _QUESTION_ONLY_WORDS
    asks_when = bool(_WHEN.search(question))
    asks_count = bool(_COUNT.search(question))
    best, best_at, best_rank = "", -1, (0.0, False, False, False)
    lines = heard.lines
    for at, line in enumerate(lines):
        if addressed(line):
            continue  # questions to the assistant are not evidence
        overlap = len(wanted & key_words(line)) / len(wanted) if wanted else 0.0
        rank = (overlap, asks_when and bool(says_when(line) or DATE.search(line)), asks_count and bool(_numbers(line)),
                not line.rstrip().endswith("?"))
        if overlap > 0 and rank >= best_rank:
            best, best_at, best_rank = line, at, rank  # ties: the later line, as corrections come later
    if best.rstrip().endswith("?") and best_at + 1 < len(lines) and not addressed(lines[best_at + 1]):
        best = f"{best} {lines[best_at + 1]}"  # "Is the charge still 1,800?" is answered by the line after it
    return f'From what was said: "{best}"' if best else ""
