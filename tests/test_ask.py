"""``streamtwin ask`` and ``streamtwin.ask``: past meetings read whole or map-reduced, the quotes checked.

The layout and the quote check are pure (no model); the prompts sent and the answers shown are tested against
a loopback server speaking Groq's wire format (tests/fakes/openai_server.py), the event log on a real
redis-server, the local path with SmolLM2 (``model``).  The recordings are made by samples/make_meetings.py.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import streamtwin
from streamtwin.config import Config
from streamtwin.events import (
    SessionStarted,
    TranscriptFinal,
    TranscriptRevised,
    TwinState,
    encode,
)
from streamtwin.llm.groq_backend import GroqBackend
from streamtwin.meetings.evidence import assemble, gather, own_words
from streamtwin.meetings.layout import (
    MAX_QUESTION_CHARS,
    check_question,
    estimate_tokens,
    lay_out,
    render,
)
from streamtwin.meetings.quotes import check
from streamtwin.meetings.transcript import Line, Meeting, MeetingFold, wanted
from tests.cli import assert_one_line_error, run_main
from tests.fakes.openai_server import FakeLLMServer, Reply
from tests.recorded_meetings import LAUNCH, MOVED, record_sessions, recordings  # noqa: F401  (the fixture)
from tests.redis_server import RedisServer, redis_server  # noqa: F401  (the fixture)


def meeting(name: str, *lines: tuple[float, str, str], twin: dict | None = None) -> Meeting:
    return Meeting(name=name, source=f"{name}.jsonl", session=name, lines=[
        Line(start, start + 2.0, speaker, text) for start, speaker, text in lines
    ], twin=twin or {})


MEETINGS = [
    meeting("week03", (9.4, "Sam", LAUNCH), (20.0, "Dana", "The test suite is green again.")),
    meeting("week15", (3.0, "Dana", "Good morning."), (14.1, "Sam", MOVED)),
]


# --- the fold, the layout and the question (pure) -----------------------------------------------------------


def test_a_recording_folds_into_revised_lines_with_speakers_and_its_twin() -> None:
    fold = MeetingFold("m", "m.jsonl")
    fold.add(SessionStarted(source="x", session="s1", wall=1000.0))
    fold.add(TranscriptFinal(text="we ship on", start=1.0, end=2.0, utterance=1, speaker="S1", speaker_name="Tom"))
    fold.add(TranscriptFinal(text="friday", start=2.0, end=2.5, utterance=1, utterance_end=True, speaker="S1",
                             speaker_name="Tom"))
    fold.add(TranscriptRevised(text="We ship on Friday.", start=1.0, end=2.5, utterance=1, speaker_name="Tom"))
    fold.add(TranscriptFinal(text="Agreed.", start=3.0, end=3.5, utterance=2, speaker="S2"))
    fold.add(TwinState(version=0, state={"decisions": ["ship on Friday"]}))
    got = fold.meeting()
    assert got.session == "s1" and got.started == 1000.0 and got.twin == {"decisions": ["ship on Friday"]}
    assert got.lines == [Line(1.0, 2.5, "Tom", "We ship on Friday."), Line(3.0, 3.5, "S2", "Agreed.")]


@pytest.mark.parametrize("kind, kept", [
    ("transcript.final", True), ("transcript.revised", True), ("twin.patch", True), ("session.started", True),
    ("transcript.partial", False), ("assistant.delta", False), ("progress", False), ("vision.observation", False),
])
def test_only_the_events_a_meeting_is_made_of_are_parsed(kind: str, kept: bool) -> None:
    assert wanted(encode({"v": 1, "type": kind, "session": "s"})) is kept
    assert wanted(b'{"type": "progress", "v": 1}')  # written some other way: parsed to be sure


def test_meetings_that_fit_go_whole_else_in_chunks_of_whole_meetings() -> None:
    texts = [render(m, i) for i, m in enumerate(MEETINGS)]
    assert texts[0].startswith("=== M1: week03 |") and "[00:09] Sam: " + LAUNCH in texts[0]
    whole = lay_out(MEETINGS, context_tokens=100_000, answer_tokens=500)
    assert not whole.map_reduce and whole.chunks == (whole.whole,)
    one_each = estimate_tokens(texts[0]) + estimate_tokens(texts[1])
    split = lay_out(MEETINGS, context_tokens=one_each - 10 + 900, answer_tokens=500)
    assert split.map_reduce and split.chunks == tuple(texts)


def test_a_meeting_longer_than_a_chunk_is_cut_at_lines_each_part_with_its_header() -> None:
    long = meeting("marathon", *[(float(i), "Ann", f"Line number {i} of a very long meeting.") for i in range(400)],
                   twin={"summary": "long"})
    layout = lay_out([long], context_tokens=1500, answer_tokens=500)
    assert len(layout.chunks) > 2
    assert all(chunk.startswith("=== M1: marathon (part ") for chunk in layout.chunks)
    assert 'twin: {"summary":"long"}' in layout.chunks[0]
    said = [line for chunk in layout.chunks for line in chunk.splitlines() if line.startswith("[")]
    assert len(said) == 400  # nothing left out, nothing twice


@pytest.mark.parametrize("question, problem", [("", "empty"), ("   \n ", "empty"),
                                               ("x" * (MAX_QUESTION_CHARS + 1), "at most")])
def test_empty_and_oversized_questions_are_refused(question: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        check_question(question)


# --- the quotes (pure) ---------------------------------------------------------------------------------------


def test_quotes_are_shown_in_the_transcripts_words_with_its_time_and_speaker() -> None:
    answer = ('First [M1 00:09 Sam] "we agreed to launch falcon on the fourteenth" and later '
              '"The Falcon launch moves to the fourth of November" [M2 00:14 Sam].')
    got = check(answer, MEETINGS)
    assert [(s.meeting, s.start, s.speaker) for s in got.sources] == [("week03", 9.4, "Sam"), ("week15", 14.1, "Sam")]
    assert got.sources[0].quote == "We agreed to launch Falcon on the fourteenth"  # the transcript's spelling
    assert got.text == ('First "We agreed to launch Falcon on the fourteenth" [1] and later '
                        '"The Falcon launch moves to the fourth of November" [2].')
    assert got.rejected == []


def test_a_mislabelled_quote_is_found_in_its_meeting_and_an_invented_one_is_taken_out() -> None:
    answer = ('It moved [M1 00:14 Sam] "launch moves to the fourth of November". '
              'Sam said [M2 00:01 Sam] "we will never launch at all" [M1].')
    got = check(answer, MEETINGS)
    assert [s.meeting for s in got.sources] == ["week15"]
    assert got.rejected == ["we will never launch at all"]
    assert "never" not in got.text and "[M" not in got.text


def test_a_quote_without_a_label_is_checked_too_and_a_short_phrase_left_alone() -> None:
    answer = ('The plan is "Project Falcon", and Sam said "the Falcon launch moves to the fourth of November" '
              'but never "we will cancel the whole project".')
    got = check(answer, MEETINGS)
    assert [(s.meeting, s.start) for s in got.sources] == [("week15", 14.1)]
    assert got.text == ('The plan is "Project Falcon", and Sam said "The Falcon launch moves to the fourth of '
                        'November" [1] but never.')
    assert got.rejected == ["we will cancel the whole project"]


def test_a_chunks_notes_reach_the_reduce_call_checked_and_numbered() -> None:
    notes = [('- Launch set: [M1 0:00 Bob] "we agreed to launch falcon on the fourteenth of October"\n'
              '- Sam said [M2 00:14 Sam] "we cancel everything tomorrow morning"'),
             "NONE",
             f'- Moved: "{MOVED}" [M2]\n- Again: [M1] "We agreed to launch Falcon on the fourteenth of October"']
    evidence = gather(notes, MEETINGS)
    assert [(s.meeting, s.start) for s in evidence.sources] == [("week03", 9.4), ("week15", 14.1)]
    assert evidence.notes == [
        '- Launch set: [1] M1 00:09 Sam: "We agreed to launch Falcon on the fourteenth of October"\n- Sam said',
        (f'- Moved: [2] M2 00:14 Sam: "{MOVED.rstrip(".")}"\n'
         '- Again: [1] M1 00:09 Sam: "We agreed to launch Falcon on the fourteenth of October"'),
    ]


def test_the_reduce_answer_gets_the_quotes_it_cites_by_number() -> None:
    evidence = gather([f'[M1 00:09 Sam] "{LAUNCH}"', f'[M2 00:14 Sam] "{MOVED}"'], MEETINGS)
    got = assemble('Set for October 14 [1], then moved to November 4 [2, 1]. Not [7]; '
                   'in the model\'s words "the launch slips a month" [2].', evidence, MEETINGS)
    launch, moved = LAUNCH.rstrip("."), MOVED.rstrip(".")
    assert got.text == (f'Set for October 14 "{launch}" [1], then moved to November 4 "{moved}" [2] "{launch}" [1]. '
                        f'Not; in the model\'s words "{moved}" [2].')
    assert [s.meeting for s in got.sources] == ["week03", "week15"] and got.rejected == []


def test_a_reduce_answer_that_copies_the_notes_form_shows_each_quote_once() -> None:
    """The notes write [1] M1 00:09 Sam: "..."; a model that copies that form cites the number and the quote after
    it: one quote in the transcript's words, no label left dangling (the quote was shown twice)."""
    evidence = gather([f'[M1 00:09 Sam] "{LAUNCH}"', f'[M2 00:14 Sam] "{MOVED}"'], MEETINGS)
    got = assemble(f'Set: [1] M1 00:09 Sam: "{LAUNCH}" Moved: [2] M2 00:14 Sam: "the launch moves". '
                   f'Also [9] M1 00:09 Sam: "{LAUNCH}"', evidence, MEETINGS)
    launch, moved = LAUNCH.rstrip("."), MOVED.rstrip(".")
    assert got.text == f'Set: "{launch}" [1] Moved: "{moved}" [2]. Also "{launch}" [1]'
    assert [s.meeting for s in got.sources] == ["week03", "week15"] and got.rejected == []


def test_a_reduce_answer_that_cites_nothing_gets_the_readers_quotes_after_it() -> None:
    """What the local Qwen did in the first accuracy run: the facts restated, meetings named, no quote kept."""
    evidence = gather([f'- [M1 00:09 Sam] "{LAUNCH}"', f'- [M2 00:14 Sam] "{MOVED}"'], MEETINGS)
    got = assemble("The launch was set for October 14 (M1) and moved to November 4 (M2).", evidence, MEETINGS)
    assert got.text == ("The launch was set for October 14 (M1) and moved to November 4 (M2).\n\nFrom the meetings:\n"
                        f'- "{LAUNCH.rstrip(".")}" [1]\n- "{MOVED.rstrip(".")}" [2]')
    assert [(s.meeting, s.speaker) for s in got.sources] == [("week03", "Sam"), ("week15", "Sam")]
    assert assemble("Nobody said.", gather(["NONE"], MEETINGS), MEETINGS).text == "Nobody said."


def test_a_near_quote_is_accepted_only_in_the_meeting_cited() -> None:
    near = '[M2 00:14 Sam] "the Falcon launch moved to the 4th of November because the payment provider is late"'
    got = check(near, MEETINGS)
    assert len(got.sources) == 1 and got.sources[0].quote == MOVED
    assert check(near.replace("M2", "M1"), MEETINGS).rejected  # not near anything in M1


# --- the API and the CLI against a loopback Groq -------------------------------------------------------------


async def test_all_fifty_meetings_go_whole_into_one_prompt(recordings: Path) -> None:
    reply = f'It moved: [M5 00:09 Sam] "{LAUNCH}" then [M29 00:14 Sam] "{MOVED}"'
    async with FakeLLMServer(Reply(reply)) as server:
        answer = await streamtwin.ask("When is the Falcon launch?", recordings, llm="groq",
                                      groq_api_key="fake", groq_base_url=server.url, llm_context_tokens=200_000)
    (request,) = server.requests
    prompt = request.body["messages"][1]["content"]
    assert answer.mode == "whole" and answer.calls == 1 and len(answer.meetings) == 50
    assert prompt.count("\n=== M") == 50 and prompt.rstrip().endswith("Question: When is the Falcon launch?")
    for path in sorted(recordings.glob("*.jsonl")):  # every line of every meeting, whole
        for line in path.read_text().splitlines():
            if '"transcript.final"' in line:
                assert json.loads(line)["text"] in prompt
    assert [s.meeting for s in answer.sources] == ["05_falcon_week03", "29_falcon_week15"]


async def test_map_then_reduce_when_they_do_not_fit(recordings: Path) -> None:
    async with FakeLLMServer(Reply("NONE")) as server:
        server.script(*[Reply("NONE")] * 40)
        answer = await streamtwin.ask("When is the Falcon launch?", recordings, llm="groq", groq_api_key="fake",
                                      groq_base_url=server.url, llm_context_tokens=3000, answer_tokens=200)
    maps, reduce = server.requests[:-1], server.requests[-1]
    assert answer.mode == "map-reduce" and answer.calls == len(server.requests) and len(maps) > 3
    read = "".join(r.body["messages"][1]["content"] for r in maps)
    assert all(f"=== M{n}: " in read for n in range(1, 51))  # every meeting in some chunk
    assert "no meeting bears on the question" in reduce.body["messages"][1]["content"]


async def test_the_reduce_call_gets_each_chunks_notes(recordings: Path) -> None:
    note = f'[M5 00:09 Sam] "{LAUNCH}"'
    async with FakeLLMServer(Reply("NONE")) as server:
        server.script(Reply(note), *[Reply("NONE")] * 40)
        answer = await streamtwin.ask("When?", recordings, llm="groq", groq_api_key="fake", groq_base_url=server.url,
                                      llm_context_tokens=3000, answer_tokens=200)
    numbered = f'[1] M5 00:09 Sam: "{LAUNCH.rstrip(".")}"'  # as the transcript's words cover the quote
    assert len(server.requests) > 2 and numbered in server.requests[-1].body["messages"][1]["content"]
    # The reduce call's own answer cites nothing: the quote it was combined from follows it, checked.
    assert answer.text == f'NONE\n\nFrom the meetings:\n- "{LAUNCH.rstrip(".")}" [1]'
    assert [(s.meeting, s.speaker) for s in answer.sources] == [("05_falcon_week03", "Sam")]


async def test_the_combined_answer_keeps_the_chunks_quotes_with_their_sources() -> None:
    """Map then reduce over two meetings, each a chunk: the readers quote, the reduce call cites them by number
    (as its prompt asks), and the answer shows the transcript's words with meeting, time and speaker."""
    from streamtwin.meetings.asking import answer_question

    texts = [render(m, i) for i, m in enumerate(MEETINGS)]
    window = estimate_tokens(texts[0]) + estimate_tokens(texts[1]) - 10 + 900
    notes = [Reply(f'- Launch date: [M1 00:09 Sam] "{LAUNCH}"'), Reply(f'- Moved: [M2 00:14 Sam] "{MOVED}"')]
    streamed: list[str] = []
    async with FakeLLMServer(Reply("unused")) as server:
        server.script(*notes, Reply("It was set for October 14 [1] and then moved to November 4 [2]."))
        backend = GroqBackend("fake", "fake-model", server.url)
        backend.context_tokens = window
        answer = await answer_question("When is the launch?", MEETINGS, backend, answer_tokens=500,
                                       on_delta=streamed.append)
        await backend.aclose()
    assert answer.mode == "map-reduce" and len(server.requests) == 3
    reduce = server.requests[-1].body["messages"]
    assert "number of the quote" in reduce[0]["content"]
    assert f'M1 00:09 Sam: "{LAUNCH.rstrip(".")}"' in reduce[1]["content"]
    assert f'M2 00:14 Sam: "{MOVED.rstrip(".")}"' in reduce[1]["content"]
    # The readers' replies may come back in either order: the numbers follow the chunks', not the replies'.
    assert {(s.meeting, s.start, s.speaker, s.quote) for s in answer.sources} == {
        ("week03", 9.4, "Sam", LAUNCH.rstrip(".")), ("week15", 14.1, "Sam", MOVED.rstrip("."))}
    assert answer.text.startswith("It was set for October 14 \"") and answer.text.count('" [') == 2
    assert "".join(streamed) == "It was set for October 14 [1] and then moved to November 4 [2]."


async def test_several_questions_read_each_chunk_once_in_a_row(recordings: Path) -> None:
    """Chunk by chunk, every question in turn: the prompts in a row differ only in the question at their end (a
    model that caches a prompt's front reads the chunk once); each question's reduce gets its own notes."""
    from streamtwin.meetings.asking import answer_questions
    from streamtwin.meetings.library import load_meetings

    meetings = await load_meetings(Config(), [str(recordings)])
    note = f'[M5 00:09 Sam] "{LAUNCH}"'
    async with FakeLLMServer(Reply("NONE")) as server:
        server.script(Reply(note), Reply("NONE"))
        backend = GroqBackend("fake", "fake-model", server.url)
        backend.context_tokens = 3000
        answers = await answer_questions(["When is the launch?", "Who owns Acme?"], meetings, backend,
                                         answer_tokens=200)
        await backend.aclose()
    prompts = [r.body["messages"][1]["content"] for r in server.requests]
    chunks = answers[0].calls - 1
    assert len(prompts) == 2 * chunks + 2
    for at in range(0, 2 * chunks, 2):
        first, second = prompts[at], prompts[at + 1]
        assert first.endswith("Question: When is the launch?") and second.endswith("Question: Who owns Acme?")
        assert first.rsplit("Question:", 1)[0] == second.rsplit("Question:", 1)[0]
    assert f'[1] M5 00:09 Sam: "{LAUNCH.rstrip(".")}"' in prompts[-2] and "no meeting bears" in prompts[-1]


def test_cli_formats(capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, recordings: Path) -> None:
    reply = f'It moved: [M5 00:09 Sam] "{LAUNCH}" then [M29 00:14 Sam] "{MOVED}" and [M1] "made up words here"'
    with FakeLLMServer(Reply(reply)).in_a_thread() as server:
        env = ["--llm", "groq", "--llm-model", "fake"]
        monkeypatch.setenv("GROQ_API_KEY", "fake")
        monkeypatch.setenv("GROQ_BASE_URL", server.url)
        text = run_main(capfd, "ask", "When is the launch?", str(recordings), *env)
        md = run_main(capfd, "ask", "When is the launch?", str(recordings), *env, "--format", "md")
        js = run_main(capfd, "ask", "When is the launch?", str(recordings), *env, "--format", "json")
        small = run_main(capfd, "ask", "When?", str(recordings), *env, "--format", "json", "--context-tokens", "3000")
    assert text.returncode == md.returncode == js.returncode == 0, text.stderr
    assert '[1] 05_falcon_week03 00:09 Sam: "We agreed to launch Falcon on the fourteenth of October"' in text.stdout
    assert "made up" not in text.stdout and "1 unsupported quote(s) left out" in text.stdout
    assert md.stdout.startswith("## When is the launch?") and "### Sources" in md.stdout
    body = json.loads(js.stdout)
    assert body["rejected_quotes"] == ["made up words here"] and len(body["sources"]) == 2
    assert body["mode"] == "whole" and json.loads(small.stdout)["mode"] == "map-reduce"


def test_bad_input_is_one_line_and_status_1(capfd: pytest.CaptureFixture[str], tmp_path: Path,
                                            recordings: Path) -> None:
    not_one = tmp_path / "notes.jsonl"
    not_one.write_text("hello\n")
    (tmp_path / "empty").mkdir()
    one = str(next(recordings.glob("*.jsonl")))
    for argv, needle in [
        (["", one], "empty"),
        (["x" * (MAX_QUESTION_CHARS + 1), one], "at most"),
        (["q", str(not_one)], "not a recording's event"),
        (["q", str(tmp_path / "missing.jsonl")], "cannot read"),
        (["q", str(tmp_path / "empty")], "no recordings"),
        (["q", "redis://127.0.0.1:1/0/"], "127.0.0.1:1"),
        (["q", one, "--llm", "none"], "needs a language model"),
    ]:
        assert_one_line_error(run_main(capfd, "ask", *argv), needle)


async def test_every_session_in_the_event_log(redis_server: RedisServer, recordings: Path) -> None:
    paths = sorted(recordings.glob("*.jsonl"))[0:5:2]  # weeks 1, 2 and 3 of the project
    sessions = await record_sessions(redis_server.url, paths)  # the third is still live: read as far as it got
    async with FakeLLMServer(Reply(f'[M3 00:09 Sam] "{LAUNCH}"')) as server:
        answer = await streamtwin.ask("When?", f"{redis_server.url}/", llm="groq", groq_api_key="fake",
                                      groq_base_url=server.url)
    assert answer.meetings == sessions
    assert [s.meeting for s in answer.sources] == ["05-falcon_week03"]


@pytest.mark.model
def test_the_local_model_map_reduces(recordings: Path) -> None:
    """SmolLM2 with a small window: several map calls and a reduce; whatever it quotes is in a transcript."""
    few = sorted(recordings.glob("*.jsonl"))[:4]
    answer = asyncio.run(streamtwin.ask("When is the Falcon launch?", few, llm="local", llm_model="smollm2",
                                        llm_context_tokens=1200, answer_tokens=120))
    assert answer.mode == "map-reduce" and answer.calls >= 3
    spoken = " ".join(line for path in few for line in path.read_text().splitlines() if "transcript.final" in line)
    assert all(source.quote in spoken for source in answer.sources)


@pytest.mark.parametrize("text, own, appended", [
    ('Launch moved to November.\n\nFrom the meetings:\n- [M2 00:09 Sam] "we move it"',
     "Launch moved to November.", True),
    ('From the meetings:\n- [M2 00:09 Sam] "we move it"', "", True),  # nothing of its own left after the check
    ("Launch moved to November.", "Launch moved to November.", False),
])
def test_an_answers_own_words_leave_out_the_quotes_put_after_it(text, own, appended):
    assert own_words(text) == (own, appended)
