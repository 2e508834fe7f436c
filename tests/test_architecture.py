"""The walls of the house, checked on the source: no import circle, no folder that imports back up,
no two modules of one name, and the stages' pure classes free of I/O (docs/architecture.md).

Read with ``ast``, not by importing: a module imported lazily inside a function counts too.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "streamtwin"

# The sans-I/O classes: they take inputs (and the time, when they need it) and return outputs. They may
# import each other and the event types, nothing that does I/O, keeps time or runs a model.
PURE = {
    "streamtwin.events",
    "streamtwin.utterances",
    "streamtwin.assistant.answers",
    "streamtwin.assistant.context",
    "streamtwin.assistant.driver",
    "streamtwin.assistant.voice_parts",
    "streamtwin.assistant.effort",
    "streamtwin.assistant.prompt_layout",
    "streamtwin.assistant.typed",
    "streamtwin.eventlog.logwrites",
    "streamtwin.eventlog.resume",
    "streamtwin.eventlog.snapshot",
    "streamtwin.llm.routing",
    "streamtwin.meetings.evidence",
    "streamtwin.meetings.layout",
    "streamtwin.meetings.quotes",
    "streamtwin.meetings.transcript",
    "streamtwin.media.jitter",
    "streamtwin.media.mediatime",
    "streamtwin.media.redact",
    "streamtwin.outputs.cues",
    "streamtwin.outputs.shown",
    "streamtwin.rooms.lookalikes",
    "streamtwin.rooms.roster",
    "streamtwin.service.access",
    "streamtwin.service.admission",
    "streamtwin.service.coalesce",
    "streamtwin.service.http_rules",
    "streamtwin.service.liveness",
    "streamtwin.service.outbox",
    "streamtwin.service.sdp_rules",
    "streamtwin.service.proxies",
    "streamtwin.service.whip_rules",
    "streamtwin.speakers.clusters",
    "streamtwin.speakers.heads",
    "streamtwin.speakers.names",
    "streamtwin.speakers.recent_audio",
    "streamtwin.speakers.turns",
    "streamtwin.speech.agreement",
    "streamtwin.speech.capacity",
    "streamtwin.speech.endpoint",
    "streamtwin.speech.hypotheses",
    "streamtwin.speech.revision",
    "streamtwin.speech.schedule",
    "streamtwin.speech.transcript_out",
    "streamtwin.twin.due",
    "streamtwin.twin.extract",
    "streamtwin.twin.addressing",
    "streamtwin.twin.outcomes",
    "streamtwin.twin.decision_phrasings",
    "streamtwin.twin.open_phrasings",
    "streamtwin.twin.task_changes",
    "streamtwin.twin.heard",
    "streamtwin.twin.item_ids",
    "streamtwin.twin.merge",
    "streamtwin.twin.mirror",
    "streamtwin.twin.model",
    "streamtwin.twin.phrasings",
    "streamtwin.twin.change_phrasings",
    "streamtwin.twin.order_phrasings",
    "streamtwin.twin.revisable",
    "streamtwin.twin.verifier",
    "streamtwin.twin.vote",
    "streamtwin.vision.frames",
    "streamtwin.vision.images",
    "streamtwin.webhooks.delivery",
    "streamtwin.webhooks.payloads",
}
IMPURE = {
    "asyncio", "time", "threading", "concurrent", "socket", "subprocess", "selectors", "signal",
    "av", "aiortc", "aioice", "websockets", "h11", "httpx", "redis", "groq", "openai",
    "faster_whisper", "ctranslate2", "llama_cpp", "onnxruntime", "prometheus_client",
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imports(name: str, path: Path, known: dict[str, Path]) -> tuple[set[str], set[str]]:
    """(streamtwin modules, other top-level packages) that ``path`` imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    ours: set[str] = set()
    theirs: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            if target.split(".")[0] == "streamtwin":
                while target not in known:
                    target = target.rpartition(".")[0]
                if target != name:
                    ours.add(target)
            else:
                theirs.add(target.split(".")[0])
    return ours, theirs


@pytest.fixture(scope="module")
def graph() -> dict[str, tuple[set[str], set[str]]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in edges.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in list(edges):
        if node not in index:
            visit(node)
    return found


def folder(module: str) -> str:
    """The stage a module belongs to: its folder, or the module itself at the package's top."""
    return ".".join(module.split(".")[:2])


def test_no_module_imports_another_in_a_circle(graph):
    assert cycles({name: ours for name, (ours, _) in graph.items()}) == []


def test_no_stage_imports_back_up_a_floor(graph):
    """Folders form a strict order: when stage A imports stage B, B never imports A (directly or not)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for name, (ours, _) in graph.items():
        for target in ours:
            if folder(target) != folder(name) and target != "streamtwin":
                edges[folder(name)].add(folder(target))
    assert cycles(edges) == []


def test_the_cycle_check_finds_a_circle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_two_modules_share_a_name():
    names: dict[str, list[str]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            names[path.stem].append(str(path.relative_to(PACKAGE)))
    for path in PACKAGE.iterdir():
        if path.is_dir() and (path / "__init__.py").exists():
            names[path.name].append(f"{path.name}/")
    assert {stem: where for stem, where in names.items() if len(where) > 1} == {}


def test_pure_classes_do_no_io(graph):
    assert PURE <= set(graph), f"listed but missing: {sorted(PURE - set(graph))}"
    for name in sorted(PURE):
        ours, theirs = graph[name]
        assert not theirs & IMPURE, f"{name} imports {sorted(theirs & IMPURE)}"
        assert ours <= PURE, f"{name} imports modules that are not pure: {sorted(ours - PURE)}"
