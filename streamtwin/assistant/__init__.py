"""The assistant: the rolling context, the driver that decides what runs when, answers, summaries and twin updates.

Pure policies (context, driver, effort, prompt_layout, answers) sit beside the asyncio adapter that runs them
(adapter, generation, twin_updates, summary, llm_calls)."""
