"""``streamtwin ask "QUESTION" REC...``: ask past meetings, every one read whole (streamtwin/meetings/)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable

from streamtwin.config import Config

ASK_EXAMPLES = """\
examples:
  streamtwin ask "What did we decide about the launch?" recordings/
  streamtwin ask "Who owns the vendor contract now?" monday.jsonl tuesday.jsonl --format md
  streamtwin ask "What is still open?" redis://127.0.0.1:6379/0/ --llm groq --format json

REC is a `streamtwin run --record` file, a folder of them (searched recursively), or redis://HOST:PORT/DB/ for
every session in the event log (redis://HOST:PORT/DB/SESSION for one).  The meetings go into the prompt whole
when they fit the model's window; else chunks of them are read in parallel and one last call combines what they
found.  Every quote in the answer is checked against the transcripts before it is shown.
"""


def add_ask_parser(
    commands: argparse._SubParsersAction, add_llm_flags: Callable[[argparse.ArgumentParser], None]
) -> None:
    ask = commands.add_parser(
        "ask",
        help="ask past meetings a question (recordings, or every session in the event log)",
        description="Answer a question from recorded meetings, each read whole, with checked quotes as sources.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=ASK_EXAMPLES,
    )
    ask.add_argument("question", help="the question (at most 2000 characters)")
    ask.add_argument("recordings", nargs="+", metavar="REC", help="a run --record file, a folder, or redis://HOST/DB/")
    ask.add_argument(
        "--format", dest="ask_format", choices=["text", "json", "md"], default="text",
        help="text (default): the answer, then its sources; json: one object; md: Markdown",
    )
    ask.add_argument(
        "--max-tokens", dest="llm_max_tokens", type=int, default=None, metavar="N",
        help="longest answer (and each chunk's notes), in tokens (default: 512)",
    )
    ask.add_argument(
        "--context-tokens", dest="llm_context_tokens", type=int, default=None, metavar="N",
        help="the model's window: meetings that fit go whole into one prompt, else map-reduce (default: the "
        "backend's: 24000 groq, 4096 openai, 3328 local; env STREAMTWIN_LLM_CONTEXT_TOKENS)",
    )
    add_llm_flags(ask)


def ask_command(config: Config, args: argparse.Namespace) -> int:
    from streamtwin.llm.backend import LLMError
    from streamtwin.meetings.asking import ask
    from streamtwin.meetings.library import LibraryError

    tokens = args.llm_max_tokens or 512
    try:
        answer = asyncio.run(_ask(ask, config, args.question, args.recordings, tokens))
    except KeyboardInterrupt:
        return 130
    except (ValueError, LibraryError) as exc:
        return _fail(str(exc))
    except LLMError as exc:
        return _fail(f"the language model failed ({exc.code}): {exc.message}")
    sys.stdout.write(render(answer, args.ask_format))
    return 0


async def _ask(ask, config: Config, question: str, recordings: list[str], tokens: int):  # type: ignore[no-untyped-def]
    return await ask(question, recordings, config=config, answer_tokens=tokens)


def render(answer, fmt: str) -> str:  # type: ignore[no-untyped-def]
    from streamtwin.meetings.layout import stamp

    if fmt == "json":
        return json.dumps(answer.to_dict(), ensure_ascii=False, indent=2) + "\n"
    sources = [
        (number, f"{source.meeting} {stamp(source.start)}" + (f" {source.speaker}" if source.speaker else ""),
         source.quote)
        for number, source in enumerate(answer.sources, start=1)
    ]
    read = f"{len(answer.meetings)} meeting{'s' if len(answer.meetings) != 1 else ''} read {answer.mode}"
    if fmt == "md":
        from streamtwin.outputs.notes import escape

        lines = [f"## {escape(answer.question)}", "", answer.text.strip(), ""]
        if sources:
            lines += ["### Sources", ""]
            lines += [f"{n}. **{escape(where)}**: \"{escape(quote)}\"" for n, where, quote in sources]
            lines.append("")
        lines.append(f"_{read}; {len(answer.rejected)} quote(s) found in no transcript left out._")
        return "\n".join(lines) + "\n"
    lines = [answer.text.strip(), ""]
    if sources:
        lines += ["Sources:"] + [f"  [{n}] {where}: \"{quote}\"" for n, where, quote in sources]
    lines.append(f"({read}; {len(answer.rejected)} unsupported quote(s) left out)")
    return "\n".join(lines) + "\n"


def _fail(message: str) -> int:
    print(f"streamtwin: error: {message}", file=sys.stderr)
    return 1
