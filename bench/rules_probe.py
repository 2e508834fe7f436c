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
from typing import Any

from bench.scoring import _matched, invented_owners, mentions_keywords, owner_matches
from streamtwin.twin.revisable import RevisableRules


def draft_of(conversation: dict[str, Any]) -> dict[str, Any]:
    rules = RevisableRules()
    for number, line in enumerate(conversation["lines"], 1):
        if not line["text"].lower().startswith("assistant"):
            rules.add(line["text"], line["speaker"], number)
    return rules.extractor.draft()


def score(paths: list[str], verbose: bool) -> dict[str, Any]:
    totals = {"decisions": [0, 0, 0], "open_questions": [0, 0, 0]}  # found, gold, shown
    found_items = shown_items = gold_items = 0
    invented: list[str] = []
    for path in paths:
        conversation = json.loads(open(path, encoding="utf-8").read())
        draft = draft_of(conversation)
        for kind, counts in totals.items():
            gold = conversation[kind]
            found = _matched(draft[kind], gold, lambda shown, entry: mentions_keywords(shown, entry["keywords"]))
            counts[0] += len(found)
            counts[1] += len(gold)
            counts[2] += len(draft[kind])
            if verbose:
                for index, entry in enumerate(gold):
                    if index not in found:
                        print(f"missed {kind[:-1]:13} {conversation['name']}: {entry['text']}")
        items, gold = draft["action_items"], conversation["action_items"]
        found = _matched(items, gold, lambda item, entry: owner_matches(item["owner"], entry["owner"])
                         and mentions_keywords(item["text"], entry["task"]))
        found_items += len(found)
        shown_items += len(items)
        gold_items += len(gold)
        conversation.setdefault("people", [])
        invented += invented_owners(conversation, [draft])
        if verbose:
            for index, entry in enumerate(gold):
                if index not in found:
                    print(f"missed item          {conversation['name']}: {entry['owner']}: {entry['said_as']}")
    precision = found_items / max(shown_items, 1)
    recall = found_items / max(gold_items, 1)
    return {
        "conversations": len(paths),
        **{kind: {"found": c[0], "gold": c[1], "shown": c[2]} for kind, c in totals.items()},
        "items": {"found": found_items, "shown": shown_items, "gold": gold_items, "precision": round(precision, 3),
                  "recall": round(recall, 3), "f1": round(2 * found_items / max(shown_items + gold_items, 1), 3)},
        "invented_owners": invented,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pattern", help='gold conversations, a glob: "samples/probes/probe5/*.json"')
    parser.add_argument("-v", "--verbose", action="store_true", help="list what was missed")
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
