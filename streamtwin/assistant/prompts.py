"""What the assistant says to the model: the system prompt and the task of each kind of call.

The rules live in the system prompt, which is part of the cached front; the task at
the end is re-read on every call (on a CPU every token of it costs), so it stays short.
"""

SYSTEM_PROMPT = (
    "You are streamtwin, a live assistant following a meeting or stream as it happens. "
    "The user message holds the transcript so far and grows with every call. Each line starts with its media "
    "time in seconds; lines marked (seen) describe what the camera shows and lines marked (assistant) are your "
    "own earlier remarks. A line may name its speaker (\"Tom: ...\", or \"S2: ...\" for a voice that has not "
    "given a name): then I, me and my in that line mean that speaker, so \"Tom: I will send the report\" makes "
    "Tom the owner. Speech recognition makes mistakes: read through them. The message ends with a task. "
    "A comment points out what is new and important in the latest lines: a decision, an action item and its "
    "owner, an open question. An answer is direct, at most three sentences, from what was said. "
    "Never invent names, dates or tasks."
)
COMMENT_INSTRUCTION = "Comment on the latest lines in one short sentence, or reply - if nothing new matters."
# The question goes in verbatim: it is the task, not one more line of context.
QUESTION_INSTRUCTION = (
    "Someone just asked you: {question}\n"
    "Answer that question only, in at most three sentences, from the transcript and the twin state above. {shape}"
)
RETRY_INSTRUCTION = "Your previous answer was not used ({problem}). Answer again, differently and only from what was said."
TWIN_INSTRUCTION = (
    "Update the twin state above from the whole transcript. Reply with the complete JSON object only, with the keys "
    'people [{name, role}], action_items [{id, text, owner, due}] (keep the id of an item you update; owner is a '
    'person named in the transcript (the named speaker of an "I will ..." line too; a label such as S2 is no '
    'name) or "unassigned"; due as said, "" when not said; when someone corrects an owner '
    "or a date, the item takes the correction; what was cancelled, only imagined or asked between people is "
    "no item), decisions, open_questions, topics, scene {description, updated_at} "
    "(what the camera shows, from the (seen) lines), summary (where the session stands, in two or three "
    "sentences). Keep what is still true; add only what the transcript supports."
)
REVISE_INSTRUCTION = (
    "A checker found these problems in that JSON:\n{critique}\nReply with the corrected complete JSON object only."
)
FOLD_INSTRUCTION = (
    "To save space, these older transcript lines were removed from above:\n{text}\n"
    "Write an updated summary of the session so far that combines the summary above (if any) with these lines. "
    "Keep names, decisions, action items with owners and due dates, and open questions. At most {words} words, "
    "plain sentences."
)
NOTHING_NEW = "-"

_LANGUAGE_NAMES = {
    "en": "English", "de": "German", "es": "Spanish", "fr": "French", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "pl": "Polish", "ru": "Russian", "uk": "Ukrainian", "tr": "Turkish", "sv": "Swedish",
    "ja": "Japanese", "zh": "Chinese", "ko": "Korean", "ar": "Arabic", "hi": "Hindi",
}


def with_participants(system: str, names: list[str]) -> str:
    """The system prompt, told who is in the meeting (``--participants``): the same for the whole session,
    so it stays in the cached front."""
    return f"{system} The participants are: {', '.join(names)}." if names else system


def in_language(instruction: str, code: str) -> str:
    """The task, told which language the people speak (speech is transcribed, never translated)."""
    if not code:
        return instruction
    name = _LANGUAGE_NAMES.get(code, f"the language with ISO code {code!r}")
    return f"{instruction}\nThe conversation is in {name}: reply in {name}."
