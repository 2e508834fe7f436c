"""bench.understanding's reports: a mode's scores gathered (:class:`ModeRun`), the tables it prints (per
conversation, per kind, per way an item was asked for, the modes side by side) and the figures of its last
JSON line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bench.scoring import Counts, Score
from bench.speakers import attribution


@dataclass
class ModeRun:
    """One mode's scores: in all, per kind of conversation, and each conversation's details."""

    mode: str
    total: Score = field(default_factory=Score)
    by_kind: dict[str, Score] = field(default_factory=dict)
    kind_counts: dict[str, int] = field(default_factory=dict)
    details: list[dict[str, Any]] = field(default_factory=list)

    def add(self, kind: str, score: Score, detail: dict[str, Any]) -> None:
        self.total.add(score)
        self.by_kind.setdefault(kind, Score()).add(score)
        self.kind_counts[kind] = self.kind_counts.get(kind, 0) + 1
        self.details.append({**detail, "mode": self.mode})


NAME_WIDTH = 18
HEADER = (f"{'AI-P':>5} {'AI-R':>5} {'AI-F1':>5} {'dec-P':>5} {'dec-R':>5} {'oq-P':>5} {'oq-R':>5} {'ppl-P':>5} "
          f"{'QA':>5} {'q->a s':>6} {'inv':>4} {'non':>4} {'wall s':>6}")


def fmt(value: float | None) -> str:
    return "  -  " if value is None else f"{value:.2f}"


def row(name: str, score: Score, wall: str) -> str:
    seconds = score.answer_seconds
    q_to_a = f"{sum(seconds) / len(seconds):.1f}" if seconds else "-"
    return (
        f"{name:<{NAME_WIDTH}} {fmt(score.action_items.precision):>5} {fmt(score.action_items.recall):>5} "
        f"{fmt(score.action_items.f1):>5} {fmt(score.decisions.precision):>5} {fmt(score.decisions.recall):>5} "
        f"{fmt(score.open_questions.precision):>5} {fmt(score.open_questions.recall):>5} "
        f"{fmt(score.people.precision):>5} {fmt(score.qa_accuracy):>5} {q_to_a:>6} "
        f"{len(score.invented_owners):>4} {len(score.non_items_taken):>4} {wall:>6}"
    )


def tag_table(title: str, by_mode: dict[str, dict[str, Counts]]) -> list[str]:
    """Action item recall per tag, one column per mode, with the number of gold items so tagged."""
    tags = sorted({tag for counts in by_mode.values() for tag in counts})
    lines = [f"{title:<{NAME_WIDTH}} {'items':>5} " + " ".join(f"{mode:>14}" for mode in by_mode)]
    for tag in tags:
        items = max(counts[tag].gold for counts in by_mode.values() if tag in counts)
        recalls = [fmt(counts[tag].recall) if tag in counts else "  -  " for counts in by_mode.values()]
        lines.append(f"{tag:<{NAME_WIDTH}} {items:>5} " + " ".join(f"{recall:>14}" for recall in recalls))
    return lines


def print_mode(run: ModeRun) -> None:
    """A mode's table after its conversations: in all, per kind, per way an item was asked for."""
    print(row("ALL", run.total, ""))
    print(f"{'kind':<{NAME_WIDTH}} {HEADER}")
    for kind in sorted(run.by_kind):
        print(row(f"{kind} ({run.kind_counts[kind]})", run.by_kind[kind], ""))
    print("\n".join(tag_table("said as: recall", {run.mode: run.total.said_as})))
    print("\n".join(tag_table("owner by: recall", {run.mode: run.total.owner_by})), flush=True)


def print_summary(runs: list[ModeRun], split: str) -> None:
    print(f"\n== summary: {split}, the modes side by side ==")
    print(f"{'mode':<{NAME_WIDTH}} {HEADER}")
    for run in runs:
        print(row(run.mode, run.total, f"{sum(d['wall_s'] for d in run.details):.0f}"))
    print("\n".join(tag_table("said as: recall", {run.mode: run.total.said_as for run in runs})))
    print("\n".join(tag_table("owner by: recall", {run.mode: run.total.owner_by for run in runs})))


def headline(score: Score) -> dict[str, Any]:
    """The figures that say how well a conversation, a kind of them or a whole mode was understood."""
    return {
        "action_item_precision": _round(score.action_items.precision),
        "action_item_recall": _round(score.action_items.recall),
        "action_item_f1": _round(score.action_items.f1),
        "decisions_precision": _round(score.decisions.precision),
        "decisions_recall": _round(score.decisions.recall),
        "open_questions_precision": _round(score.open_questions.precision),
        "open_questions_recall": _round(score.open_questions.recall),
        "people_precision": _round(score.people.precision),
        "qa_accuracy": _round(score.qa_accuracy),
        "invented_owners": len(score.invented_owners),
        "non_items": score.non_items,
        "non_items_taken": len(score.non_items_taken),
    }


def recall_per_tag(counts: dict[str, Counts]) -> dict[str, dict[str, Any]]:
    return {tag: {"items": c.gold, "recall": _round(c.recall)} for tag, c in sorted(counts.items())}


def mode_figures(run: ModeRun, speech: str, speakers: str) -> dict[str, Any]:
    total = run.total
    seconds = sorted(total.answer_seconds)
    labelled = [[tuple(w) for w in d.get("speaker_words", [])] for d in run.details]
    words = sum(map(len, labelled))
    right = sum(attribution(w)[0] * len(w) for w in labelled if w)
    named = [voices_named(d) for d in run.details]
    return {
        "speech": speech,
        "conversations": len(run.details),
        **headline(total),
        "qa_fact_recall": _round(total.facts_found / total.facts if total.facts else None),
        "questions": total.questions,
        "answered": len(seconds),
        "question_to_answer_s": {
            "p50": seconds[len(seconds) // 2] if seconds else None,
            "max": seconds[-1] if seconds else None,
        },
        # Share of words under the right speaker label (each conversation's labels matched to its speakers).
        "speaker_attribution": _round(right / words if words and speakers != "off" else None),
        # Voices given a name (from what was said, --participants): right when it is the speaker the label holds
        # most words of; of every speaker heard.
        "voices_named_right": sum(n[0] for n in named),
        "voices_named_wrong": sum(n[1] for n in named),
        "voices": sum(n[2] for n in named),
        "by_kind": {kind: {"conversations": run.kind_counts[kind], **headline(score)}
                    for kind, score in sorted(run.by_kind.items())},
        "said_as_recall": recall_per_tag(total.said_as),
        "owner_by_recall": recall_per_tag(total.owner_by),
    }


def voices_named(detail: dict[str, Any]) -> tuple[int, int, int]:
    """(named right, named wrong, speakers heard) of one conversation's voice labels."""
    words = [tuple(w) for w in detail.get("speaker_words", [])]
    mapping = attribution(words)[1] if words else {}
    names = detail.get("voice_names", {})
    right = sum(mapping.get(label) == name for label, name in names.items())
    return right, len(names) - right, len({truth for _, truth in words})


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
