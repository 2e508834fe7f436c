"""The rules alone on gold conversations heard perfectly, in a second: decisions, open questions, action items.

Feeds each gold line, with its speaker's name, to the rules' twin (:class:`streamtwin.twin.revisable.RevisableRules`)
and scores the draft as ``bench.understanding`` does (:mod:`bench.scoring`).  No pipeline, no model, no clock: for
probes written apart from the evaluation set (``samples/probes``), to see at once whether the grammar reads an
author it never saw.  ``bench.understanding --mode gold`` is the reference figure on ``samples/eval``.

Usage: python -m bench.rules_probe "samples/probes/probe5/*.json" [-v]
"""

from __future__ import annotations

import argparse
import glob
import json
from pathlib import Path
from typing import Any

from bench.scoring import Counts, Score, invented_owners, score_twin
from streamtwin.twin.revisable import RevisableRules


def draft_of(conversation: dict[str, Any]) -> dict[str, Any]:
    rules = RevisableRules()
    for number, line in enumerate(conversation["lines"], 1):
        if not line["text"].lower().startswith("assistant"):
            rules.add(line["text"], line["speaker"], number)
    return rules.extractor.draft()


def _counts(counts: Counts) -> dict[str, Any]:
    return {"found": counts.matched_gold, "gold": counts.gold, "shown": counts.predicted}


def score(paths: list[str], verbose: bool) -> dict[str, Any]:
    """The rules' drafts of ``paths`` scored by :func:`bench.scoring.score_twin`, summed."""
    total = Score()
    for path in paths:
        gold = {"people": [], "non_items": [], **json.loads(Path(path).read_text(encoding="utf-8"))}
        draft = draft_of(gold)
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
    args = parser.parse_args()
    paths = sorted(glob.glob(args.pattern))
    if not paths:
        parser.error(f"no file matches {args.pattern}")
    result = score(paths, args.verbose)
    d, q, i = result["decisions"], result["open_questions"], result["items"]
    print(f"{result['conversations']} conversations: decisions {d['found']} of {d['gold']} ({d['shown']} shown); "
          f"open questions {q['found']} of {q['gold']} ({q['shown']} shown); action items F1 {i['f1']:.3f} "
          f"(P {i['precision']:.2f}, R {i['recall']:.2f}); invented owners {len(result['invented_owners'])} "
          f"{result['invented_owners']}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
