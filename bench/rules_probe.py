"""The rules alone on gold conversations heard perfectly, in a second: decisions, open questions, action items.

Feeds each gold line, with its speaker's name, to the rules' twin (:class:`streamtwin.twin.revisable.RevisableRules`)
and scores the draft as ``bench.understanding`` does (:mod:`bench.scoring`).  No pipeline, no model, no clock: for
probes written apart from the evaluation set (``samples/probes``), to see at once whether the grammar reads an
author it never saw.  ``bench.understanding --mode gold`` is the reference figure on ``samples/eval``.

With ``--restate``, the decisions, open questions and tasks that lean on context are then restated by the default local
model as a twin update restates them (:mod:`streamtwin.twin.standalone`): the model's share, measured alone
(about 6 s per entry on a 2-core CPU).

Usage: python -m bench.rules_probe "samples/probes/probe5/*.json" [-v] [--restate]
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import json
from pathlib import Path
from typing import Any

from bench.scoring import Counts, Score, invented_owners, score_twin
from streamtwin.assistant.context import ContextWindow
from streamtwin.assistant.prompts import SYSTEM_PROMPT
from streamtwin.llm.backend import ChatRequest, Delta
from streamtwin.twin import standalone
from streamtwin.twin.revisable import RevisableRules

TWIN_EXTRA_TOKENS = 256  # the twin reply's room beyond an answer's, as build_assistant sizes the window


def draft_of(conversation: dict[str, Any]) -> dict[str, Any]:
    rules = RevisableRules()
    for number, line in enumerate(conversation["lines"], 1):
        if not line["text"].lower().startswith("assistant"):
            rules.add(line["text"], line["speaker"], number)
    return rules.extractor.draft()


def _counts(counts: Counts) -> dict[str, Any]:
    return {"found": counts.matched_gold, "gold": counts.gold, "shown": counts.predicted}


async def restated(
    draft: dict[str, Any], conversation: dict[str, Any], backend: Any, verbose: bool = False
) -> dict[str, Any]:
    """``draft`` with its entries that lean on context restated by ``backend`` as a twin update restates them: the
    context window of the lines up to two after the entry's (a twin update runs every third utterance) and the
    instruction after it."""
    lines = [f"{line['speaker']}: {line['text']}" for line in conversation["lines"]]
    restatements = standalone.Restatements()
    for kind, entry in restatements.wanted(draft):
        at = standalone.where_said(lines, entry)
        text = ""
        if at >= 0:
            window = ContextWindow.for_model(backend.context_tokens, SYSTEM_PROMPT, TWIN_EXTRA_TOKENS)
            for number, line in enumerate(lines[: at + 3]):
                window.add(3.0 * number, line)
            request = ChatRequest(window.render(standalone.instruction(kind, entry, lines[at])).messages,
                                  max_tokens=standalone.REPLY_TOKENS)
            reply = "".join([item.text async for item in backend.stream(request) if isinstance(item, Delta)])
            owner = standalone.owner_of(draft, kind, entry)
            text = standalone.accepted(kind, entry, reply, standalone.evidence(lines, at), owner)
            if verbose:
                print(f"{conversation['name']} restated {kind[:-1]}: {entry!r}\n  model: {reply.strip()!r}\n  "
                      + (f"kept: {text!r}" if text else "not kept"))
        restatements.record(kind, entry, text)
    return restatements.apply(draft)


def score(paths: list[str], verbose: bool, backend: Any = None) -> dict[str, Any]:
    """The rules' drafts of ``paths`` (restated by ``backend`` if given) scored by
    :func:`bench.scoring.score_twin`, summed."""
    total = Score()
    golds = [{"people": [], "non_items": [], **json.loads(Path(path).read_text(encoding="utf-8"))} for path in paths]
    drafts = [draft_of(gold) for gold in golds]
    if backend is not None:  # one event loop for all: the backend's lock belongs to it

        async def restate_all() -> list[dict[str, Any]]:
            return [await restated(draft, gold, backend, verbose) for draft, gold in zip(drafts, golds)]

        drafts = asyncio.run(restate_all())
    for gold, draft in zip(golds, drafts):
        one = score_twin(gold, draft)
        one.invented_owners = invented_owners(gold, [draft])
        total.add(one)
        if verbose:  # side by side: what the gold holds, what the rules showed
            for kind in ("decisions", "open_questions"):
                print(f"{gold['name']} {kind}\n  gold:  " + "\n         ".join(g["text"] for g in gold[kind])
                      + "\n  shown: " + "\n         ".join(draft[kind]))
            print(f"{gold['name']} action items\n  gold:  "
                  + "\n         ".join(f"{g['owner']}: {g['said_as']}" for g in gold["action_items"])
                  + "\n  shown: " + "\n         ".join(f"{a['owner']}: {a['text']}" for a in draft["action_items"]))
    items = total.action_items
    return {
        "conversations": len(paths),
        "decisions": _counts(total.decisions),
        "open_questions": _counts(total.open_questions),
        "items": {**_counts(items), "precision": round(items.precision or 0.0, 3),
                  "recall": round(items.recall or 0.0, 3), "f1": round(items.f1 or 0.0, 3)},
        "invented_owners": total.invented_owners,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pattern", help='gold conversations, a glob: "samples/probes/probe5/*.json"')
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print each conversation's gold beside what the rules showed (not on a blind probe)")
    parser.add_argument("--restate", action="store_true",
                        help="restate the entries that lean on context with the default local model")
    args = parser.parse_args()
    paths = sorted(glob.glob(args.pattern))
    if not paths:
        parser.error(f"no file matches {args.pattern}")
    backend = None
    if args.restate:
        from streamtwin.llm.local_backend import LocalBackend  # llama.cpp: only when asked for

        backend = LocalBackend()
    result = score(paths, args.verbose, backend)
    d, q, i = result["decisions"], result["open_questions"], result["items"]
    print(f"{result['conversations']} conversations: decisions {d['found']} of {d['gold']} ({d['shown']} shown); "
          f"open questions {q['found']} of {q['gold']} ({q['shown']} shown); action items F1 {i['f1']:.3f} "
          f"(P {i['precision']:.2f}, R {i['recall']:.2f}); invented owners {len(result['invented_owners'])} "
          f"{result['invented_owners']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
