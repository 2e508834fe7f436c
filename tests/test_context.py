from __future__ import annotations

import pytest

from streamtwin.assistant.context import HEARD, SAID, SEEN, ContextWindow, approx_tokens
from streamtwin.assistant.prompt_layout import flatten

SYSTEM = "You are a test assistant."


def utterance(i: int) -> str:
    return f"speaker {i % 3} says item number {i} about the budget and the website"


def make_window(budget: int = 600, block: int = 64, **kwargs) -> ContextWindow:
    return ContextWindow(budget, block_tokens=block, system_prompt=SYSTEM, **kwargs)


def test_lines_render_with_media_time_and_kind_markers():
    window = make_window()
    window.add(12.34, "hello   there", HEARD)
    window.add(13.0, "a whiteboard with a diagram", SEEN)
    window.add(14.5, "noted: hello", SAID)
    text = window.context_text()
    assert "[12.3s] hello there\n" in text
    assert "[13.0s] (seen) a whiteboard with a diagram\n" in text
    assert "[14.5s] (assistant) noted: hello\n" in text
    assert "(assistant)" not in window.grounding_text()
    assert "[12.3s] hello there" in window.grounding_text()


def test_front_is_a_byte_prefix_of_the_next_prompt_across_many_appends():
    window = make_window(budget=100_000, block=64)
    previous = None
    for i in range(300):
        window.add(float(i), utterance(i), SAID if i % 7 == 0 else HEARD)
        # The volatile part changes every call: twin state and instruction differ.
        prompt = window.render(f"instruction {i}", twin_state={"summary": f"state {i}"})
        assert prompt.flat.startswith(prompt.front)
        assert prompt.front.endswith(window.context_text())
        if previous is not None:
            assert prompt.flat.startswith(previous.front), f"prefix broken at append {i}"
        previous = prompt
    assert window.take_evicted() == []


def test_volatile_part_holds_twin_state_partial_and_instruction_after_the_front():
    window = make_window()
    window.add(1.0, "we decided to ship on Friday")
    prompt = window.render("Answer the question.", twin_state={"b": 1, "a": 2}, speaking_now="and then we")
    volatile = prompt.flat[prompt.boundary :]
    assert '{"a":2,"b":1}' in volatile  # sorted, compact: byte-stable for equal states
    assert "and then we" in volatile
    assert "Answer the question." in volatile
    assert prompt.messages[0] == {"role": "system", "content": SYSTEM}
    assert prompt.messages[1]["role"] == "user"


def test_eviction_happens_in_whole_blocks_from_the_oldest_end_and_respects_the_budget():
    window = make_window(budget=600, block=64)
    evicted = []
    for i in range(200):
        window.add(float(i), utterance(i))
        assert window.front_tokens <= window.budget_tokens
        assert approx_tokens(window.context_text() + SYSTEM) <= window.budget_tokens + 8  # parts vs whole: rounding
        evicted += window.take_evicted()
    assert len(evicted) >= 5
    seqs = [block.seq for block in evicted]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    for block in evicted:
        assert block.tokens >= window.block_tokens  # whole blocks, not single items
        assert block.text.count("\n") == block.items
    # Oldest first: evicted times come before what is still in the transcript.
    assert evicted[-1].last_at < float(window.context_text().split("## Transcript")[1].split("[")[1].split("s]")[0])


def test_every_item_is_in_the_prompt_or_in_an_evicted_block():
    window = make_window(budget=600, block=64)
    evicted_text = ""
    for i in range(120):
        window.add(float(i), utterance(i))
        evicted_text += "".join(block.text for block in window.take_evicted())
    in_prompt = window.context_text()
    for i in range(120):
        assert (utterance(i) in in_prompt) != (utterance(i) in evicted_text), i


def test_prefix_survives_until_an_eviction_then_is_stable_again():
    window = make_window(budget=600, block=64)
    previous = window.render("go")
    breaks = 0
    for i in range(200):
        window.add(float(i), utterance(i))
        prompt = window.render("go")
        evicted = window.take_evicted()
        if evicted:
            breaks += 1
        else:
            assert prompt.flat.startswith(previous.front), i
        previous = prompt
    assert breaks >= 3


def test_low_water_evicts_several_blocks_at_once_so_the_front_changes_less_often():
    def evictions(low_water: float) -> int:
        window = make_window(budget=800, block=64, low_water=low_water)
        count = 0
        for i in range(400):
            window.add(float(i), utterance(i))
            count += bool(window.take_evicted())
        return count

    assert evictions(0.6) < evictions(1.0) / 2


def test_evicted_content_stays_as_a_marked_note_until_the_summary_replaces_it():
    window = make_window(budget=600, block=64)
    i = 0
    while not (evicted := window.take_evicted()):
        window.add(float(i), utterance(i))
        i += 1
    text = window.context_text()
    assert "not yet summarised" in text
    assert "…[truncated]" in text  # the note is an excerpt and says so

    window.set_summary("Alice and Bob discussed the budget.", through_seq=evicted[-1].seq)
    text = window.context_text()
    assert "Alice and Bob discussed the budget." in text
    assert "not yet summarised" not in text
    assert window.summary == "Alice and Bob discussed the budget."


def test_summary_fold_changes_the_front_once_then_appends_keep_the_prefix():
    window = make_window(budget=600, block=64)
    i = 0
    while not (evicted := window.take_evicted()):
        window.add(float(i), utterance(i))
        i += 1
    before = window.render("go")
    window.set_summary("Summary of the first minutes.", through_seq=evicted[-1].seq)
    after = window.render("go")
    assert not after.flat.startswith(before.front)
    window.add(float(i), "one more line")
    assert window.render("go").flat.startswith(after.front)


def test_summary_covers_only_the_blocks_it_was_made_from():
    window = make_window(budget=600, block=64)
    evicted = []
    i = 0
    while len(evicted) < 2:
        window.add(float(i), utterance(i))
        evicted += window.take_evicted()
        i += 1
    window.set_summary("first block summary", through_seq=evicted[0].seq)
    text = window.context_text()
    assert "first block summary" in text
    assert text.count("not yet summarised") == len(evicted) - 1


def test_many_unsummarised_evictions_leave_a_marker_instead_of_growing_or_vanishing():
    window = make_window(budget=600, block=64)
    total_evicted = 0
    for i in range(600):
        window.add(float(i), utterance(i))
        total_evicted += len(window.take_evicted())
        assert window.front_tokens <= window.budget_tokens
    text = window.context_text()
    assert total_evicted > 10
    assert "older block(s) not in this prompt, summary pending" in text
    window.set_summary("everything so far", through_seq=10_000)
    assert "summary pending" not in window.context_text()


def test_oversized_items_and_summaries_are_truncated_visibly():
    window = make_window(budget=600, block=64)
    window.add(1.0, "word " * 500)
    line = window.context_text().split("## Transcript")[1]
    assert "…[truncated]" in line
    assert approx_tokens(line) <= window.block_tokens + 20
    window.set_summary("summary " * 500, through_seq=0)
    assert window.summary.endswith("…[truncated]")
    assert window.front_tokens <= window.budget_tokens


def test_a_megabyte_answer_costs_a_block_and_says_it_was_cut():
    window = make_window(budget=600, block=64)
    window.add(1.0, "token " * 200_000, SAID)
    line = window.context_text().split("## Transcript")[1]
    assert line.count("…[truncated]") == 1 and approx_tokens(line) <= window.block_tokens + 20
    # Cut before whitespace is folded: a long text that folds to little still says it was cut.
    window.add(2.0, "short" + " " * 100_000 + "lost")
    assert window.context_text().rstrip("\n").endswith("short …[truncated]")


def test_budget_too_small_for_the_block_size_is_refused():
    with pytest.raises(ValueError):
        ContextWindow(100, block_tokens=64)


def test_custom_token_counter_is_used_for_the_budget():
    words = lambda text: len(text.split())  # noqa: E731 - one token per word
    window = ContextWindow(400, block_tokens=40, count_tokens=words)
    for i in range(100):
        window.add(float(i), utterance(i))
        window.take_evicted()
        assert words(window.context_text()) <= 400


def test_flatten_is_the_concatenation_of_messages_in_order():
    messages = [{"role": "system", "content": "a"}, {"role": "user", "content": "b"}]
    assert flatten(messages) == "<|system|>\na<|end|>\n<|user|>\nb<|end|>\n"


def test_a_twin_grown_past_its_share_takes_the_excess_from_the_front():
    """A 30-minute soak sent a 4k-token local model prompts of 8-9.6k tokens: the twin JSON had grown far
    past the quarter of the context left for it, and nothing counted it.  Its excess now evicts blocks."""
    budget, volatile = 1200, 300
    window = make_window(budget, block=64, volatile_tokens=volatile)
    for i in range(200):
        window.add(float(i), utterance(i))
        window.take_evicted()
    small = flatten(window.render("Update the twin.", twin_state={"topics": ["launch"]}).messages)
    assert approx_tokens(small) <= budget + volatile
    big_twin = {"action_items": [{"text": f"item {i} " + "word " * 40, "owner": "Ann"} for i in range(20)]}
    prompt = window.render("Update the twin.", twin_state=big_twin)
    assert approx_tokens(flatten(prompt.messages)) <= budget + volatile + 16  # chat markup
    assert window.take_evicted()  # the room came from whole blocks, which the summary folds as usual
    # The twin shrinks again: the front may grow back to its full budget.
    window.render("Update the twin.", twin_state={"topics": ["launch"]})
    for i in range(200, 260):
        window.add(float(i), utterance(i))
    assert window.front_tokens > window.budget_tokens * 0.75 - 64


def test_without_a_volatile_share_the_window_counts_only_its_front():
    window = make_window(1200, block=64)
    for i in range(200):
        window.add(float(i), utterance(i))
    before = window.front_tokens
    window.render("Task.", twin_state={"items": ["word " * 2000]})
    assert window.front_tokens == before


def test_a_revised_utterance_replaces_its_line_in_the_tail_and_never_a_sealed_block():
    window = make_window(block=64)
    window.add(1.0, "Tom: it beats our own servant's time")
    window.add(2.0, "Ann: and then?")
    assert window.revise(1.0, "Tom: it beats our own servant's time", "Tom: it beats around 70 times")
    assert "[1.0s] Tom: it beats around 70 times\n[2.0s] Ann: and then?" in window.context_text()
    assert "servant" not in window.context_text()
    assert not window.revise(2.0, "Ann: something else", "Ann: no")  # not what was added
    for i in range(3, 40):
        window.add(float(i), utterance(i))
    sealed = window.context_text()
    assert not window.revise(2.0, "Ann: and then?", "Ann: and when?")  # sealed: the front stays stable
    assert window.context_text() == sealed
