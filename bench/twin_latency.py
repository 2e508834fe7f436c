"""How soon a viewer sees each action item after the sentence that gave it ended (issue 34: within 15 s).

Run from the repository root:  python -m bench.twin_latency [SAMPLE] [--llm local|none|...] [--llm-model ...]

The sample (default samples/meeting.wav; meeting.mp4 is its first 20 s) runs in real time through the same
``Session`` as ``streamtwin run --realtime``, on the default speech model and LLM unless told otherwise.  Its
gold action items (the sample's ``facts``) are matched, by their task's key words, to the twin as it
changes: for each, the seconds from the end of the sentence that asked for it (its turn's end in the sample,
on the session's clock) to the first twin state that holds it, and whether that state had the right owner.
Ends with one JSON line; say the load average beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any

import jsonpatch

import streamtwin
from streamtwin.twin.heard import key_words

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def gold_items(sample: Path) -> list[dict[str, Any]]:
    """The sample's action items, each with the end of the turn that says its task (None: not in this cut)."""
    meta_path = sample.with_suffix(".json") if sample.suffix == ".wav" else SAMPLES / "meeting_mp4.json"
    meta = json.loads(meta_path.read_text())
    facts = meta.get("facts") or json.loads((SAMPLES / "meeting.json").read_text())["facts"]
    items = []
    for item in facts["action_items"]:
        wanted = key_words(item["task"])
        overlap = {index: len(wanted & key_words(t["text"])) for index, t in enumerate(meta["turns"])}
        best = max(overlap.values(), default=0)  # the turn that says most of the task (first of equals)
        said = next(meta["turns"][i] for i, n in overlap.items() if n == best)
        items.append({**item, "said_end": said["end"] if best >= 0.6 * len(wanted) else None})
    return items


def holds(state: dict[str, Any], item: dict[str, Any]) -> tuple[bool, bool]:
    """(the twin lists the item's task, with its owner)."""
    wanted = key_words(item["task"])
    for entry in state.get("action_items", []):
        if len(wanted & key_words(entry.get("text", ""))) >= 0.6 * len(wanted):
            return True, item["owner"].lower() in (entry.get("owner") or "").lower()
    return False, False


async def trial(sample: Path, options: dict[str, Any]) -> dict[str, Any]:
    items = gold_items(sample)
    seen: dict[str, dict[str, Any]] = {}
    state: dict[str, Any] = {}
    start_wall = None
    async for event in streamtwin.stream(sample, realtime=True, vision=False, **options):
        if event.type == "session.started":
            start_wall = event.wall
        elif event.type == "twin.state":
            state = event.state
        elif event.type == "twin.patch":
            state = jsonpatch.apply_patch(state, event.patch)
        else:
            continue
        for item in items:
            listed, owned = holds(state, item)
            first = seen.get(item["task"])
            if listed and first is None and item["said_end"] is not None and start_wall is not None:
                seen[item["task"]] = {"after_s": round(event.wall - start_wall - item["said_end"], 2), "owner": owned}
            elif listed and owned and first is not None and "owner_after_s" not in first and start_wall is not None:
                first["owner_after_s"] = round(event.wall - start_wall - item["said_end"], 2)
    rows = []
    for item in items:
        listed, owned = holds(state, item)
        first = seen.get(item["task"], {})
        rows.append({"owner": item["owner"], "task": item["task"], "said_end_s": item["said_end"],
                     "first_shown_after_s": first.get("after_s"), "owner_right_then": first.get("owner"),
                     "right_owner_after_s": first.get("after_s") if first.get("owner") else first.get("owner_after_s"),
                     "in_final_twin": listed, "final_owner_right": owned})
    said = [r for r in rows if r["said_end_s"] is not None]
    shown = [r["right_owner_after_s"] for r in said if r["right_owner_after_s"] is not None]
    return {"items": rows, "final_action_items": state.get("action_items", []), "items_said": len(said),
            "shown_with_owner": len(shown),
            "worst_s": max(shown) if shown else None,
            "others_in_final_twin": max(0, len(state.get("action_items", [])) - sum(r["in_final_twin"] for r in rows))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sample", nargs="?", default=str(SAMPLES / "meeting.wav"))
    parser.add_argument("--llm", default="local")
    parser.add_argument("--llm-model", default="")
    parser.add_argument("--asr-model", default="base")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    options: dict[str, Any] = {"llm": args.llm, "asr_model": args.asr_model}
    if args.llm_model:
        options["llm_model"] = args.llm_model
    if args.llm == "none":
        options["twin_without_llm"] = True
    load_before = os.getloadavg()
    result = asyncio.run(trial(Path(args.sample), options))
    for row in result["items"]:
        print(f"{row['owner']}: {row['task']} (said by {row['said_end_s']} s): "
              f"shown after {row['first_shown_after_s']} s, "
              f"with its owner after {row['right_owner_after_s']} s; in the final twin: {row['in_final_twin']}, "
              f"owner right: {row['final_owner_right']}")
    print(json.dumps({"bench": "twin_latency", "sample": Path(args.sample).name, **options,
                      "load_average_before": load_before, "load_average_after": os.getloadavg(), **result}))


if __name__ == "__main__":
    main()
