"""`streamtwin run` end to end with a language model: the real Groq SDK against a loopback
server speaking Groq's wire format, faults on that server, and the embedded local model.

The command runs in this process (``main``); the server answers from a thread of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import run_main
from tests.conftest import WAITS
from tests.fakes.openai_server import FakeLLMServer, Reply

pytestmark = [pytest.mark.model, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parent.parent / "samples"

TWIN_JSON = json.dumps(
    {
        "people": [{"name": "Alice", "role": "host"}, {"name": "Zebediah"}],  # nobody said Zebediah
        "action_items": [{"text": "look at the search page", "owner": "Carol", "due": "this week"}],
        "decisions": [],
        "open_questions": [],
        "topics": ["new website", "project costs"],
        "scene": {"description": "", "updated_at": None},
        "summary": "Weekly planning: the website is almost ready but search is slow.",
    }
)


def run_cli(capfd: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict], str]:
    ran = run_main(capfd, "run", *args, "--format", "jsonl")
    return ran.returncode, [json.loads(line) for line in ran.stdout.splitlines()], ran.stderr


def prompt_text(request) -> str:
    parts = []
    for message in request.body["messages"]:
        content = message["content"]
        parts.append(content if isinstance(content, str) else json.dumps(content))
    return "\n".join(parts)


@WAITS
def test_groq_sdk_receives_every_final_and_streams_back(capfd, monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "test-key")
    server = FakeLLMServer(reply=Reply("Noted: the search page is slow."), json_reply=Reply(TWIN_JSON))
    with server.in_a_thread():
        monkeypatch.setenv("GROQ_BASE_URL", server.url)
        code, events, stderr = run_cli(capfd, str(SAMPLES / "meeting.mp4"), "--realtime")
    assert code == 0, stderr
    assert events[0]["options"]["llm"] == "groq"
    assert all(r.path == "/openai/v1/chat/completions" for r in server.requests)
    assert all(r.headers.get("authorization") == "Bearer test-key" for r in server.requests)
    # The context window folds whitespace (a final may carry Whisper's double space): compare words.
    prompts = " ".join(" ".join(prompt_text(r) for r in server.requests).split())
    finals = [e["text"] for e in events if e["type"] == "transcript.final"]
    assert len(finals) >= 5
    for text in finals:
        assert " ".join(text.split()) in prompts, f"final never reached the model: {text!r}"

    answers = [e for e in events if e["type"] == "assistant.done" and not e["cancelled"]]
    assert answers and answers[0]["tokens"] > 0 and answers[0]["ttft_ms"] is not None
    generation = answers[0]["generation"]
    streamed = "".join(e["text"] for e in events if e["type"] == "assistant.delta" and e["generation"] == generation)
    assert streamed == "Noted: the search page is slow."

    patches = [e for e in events if e["type"] == "twin.patch"]
    assert patches, "the twin never updated"
    people = {op["value"]["name"] for p in patches for op in p["patch"] if op["path"].startswith("/people/")}
    assert people == {"Alice"}  # the invented name never reaches a viewer


@WAITS
def test_a_failing_endpoint_never_stops_the_transcript(capfd, monkeypatch):
    # No answer can come: the end stops waiting for one once the endpoint has failed again and again (it used to
    # wait out the whole default drain, 90 s).
    monkeypatch.setenv("GROQ_API_KEY", "k")
    with FakeLLMServer(reply=Reply(status=500)).in_a_thread() as server:
        monkeypatch.setenv("GROQ_BASE_URL", server.url)
        code, events, stderr = run_cli(capfd, str(SAMPLES / "meeting.mp4"))
    assert code == 0, stderr
    types = [e["type"] for e in events]
    assert types.count("transcript.final") >= 5 and types[-1] == "session.ended"
    errors = [e for e in events if e["type"] == "error"]
    assert errors and all(e["code"].startswith("llm_") and not e["fatal"] for e in errors)
    assert [e["code"] for e in errors].count("llm_unavailable") == 1  # the end did not wait out the drain (90 s)
    # Nothing from the failing model reaches the twin; what the rules found still does.
    assert all(e["why"]["origins"] == ["rules"] for e in events if e["type"] == "twin.patch")


@pytest.mark.xdist_group("llama")  # with the other llama.cpp tests (tests/test_llm_local.py)
def test_embedded_local_model_answers_and_keeps_a_twin(capfd, monkeypatch):
    monkeypatch.setenv("STREAMTWIN_LLM_DRAIN_S", "400")  # a shared CPU can make the last twin update slow
    code, events, stderr = run_cli(capfd, str(SAMPLES / "meeting.mp4"), "--llm", "local", "--llm-model", "smollm2")
    assert code == 0, stderr
    assert events[0]["options"]["llm"] == "local"
    types = {e["type"] for e in events}
    assert {"transcript.final", "assistant.started", "assistant.delta", "twin.state"} <= types
    answers = [e for e in events if e["type"] == "assistant.done" and not e["cancelled"]]
    assert answers and answers[-1]["tokens"] > 0
