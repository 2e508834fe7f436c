// The Assistant panel: answers and comments as they stream (assistant.started, .delta, .done), and the
// box under it that asks a typed question ({"type": "ask", "text": ...}; docs/protocol.md).

import { el } from './dom.js';

const MAX_ANSWERS = 30;
const PLACEHOLDER = 'Comments and answers stream here while the session runs.';
// Refusals of a typed question: the box may be used again at once.
const ASK_REFUSALS = new Set(['bad_question', 'ask_in_flight', 'too_many_questions', 'assistant_busy', 'no_assistant',
  'ask_unavailable', 'hello_required']);

function stickToBottom(container, update) {
  const atBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 40;
  update();
  if (atBottom) container.scrollTop = container.scrollHeight;
}

export class AssistantPanel {
  // scroller: where answers go; form, input: the ask box; send(message): false when not connected.
  constructor({ scroller, form, input, send }) {
    this.scroller = scroller;
    this.form = form;
    this.input = input;
    this.send = send;
    this.answers = new Map(); // generation -> {root, meta, text}
    this.asked = null; // the question this page is waiting for: {text, generation}
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.ask();
    });
  }

  // The box is usable once the page has joined a session (a hello was welcomed).
  enable(on) {
    this.form.hidden = !on;
  }

  ask() {
    const text = this.input.value.trim();
    if (!text || this.asked) return;
    if (!this.send({ type: 'ask', text })) return;
    this.asked = { text: text.split(/\s+/).join(' '), generation: null };
    this.setBusy(true);
  }

  setBusy(busy) {
    this.form.querySelector('button').disabled = busy;
    this.form.setAttribute('aria-busy', busy ? 'true' : 'false');
    if (!busy) this.input.focus();
  }

  // An error frame: one that refuses the question lets the box be used again.
  onError(code) {
    if (this.asked && ASK_REFUSALS.has(code)) {
      this.asked = null;
      this.setBusy(false);
    }
  }

  started(event) {
    const asked = event.trigger === 'question' && event.asker ? ` · ${event.asker}: ${event.question}` : '';
    this.answerFor(event.generation, event.trigger + (event.route ? ` · ${event.backend}` : '') + asked);
    if (this.asked && event.trigger === 'question' && event.question === this.asked.text) {
      this.asked.generation = event.generation;
    }
  }

  switched(event) { // another backend took over; with restart its answer replaces the text so far
    const answer = this.answerFor(event.generation);
    if (event.restart) answer.text.textContent = '';
    answer.meta.textContent += ` · → ${event.backend}`;
    answer.meta.title = event.reason;
  }

  delta(event) {
    stickToBottom(this.scroller, () => { this.answerFor(event.generation).text.textContent += event.text; });
  }

  done(event) {
    const answer = this.answerFor(event.generation);
    answer.root.classList.remove('streaming');
    const text = answer.text.textContent.trim();
    if (event.cancelled || text === '-' || text === '') {
      answer.root.classList.add(event.cancelled ? 'cancelled' : 'quiet');
    }
    const stats = [];
    if (event.ttft_ms != null) stats.push(`first token ${Math.round(event.ttft_ms)} ms`);
    if (event.tokens_per_s) stats.push(`${event.tokens_per_s.toFixed(1)} tok/s`);
    if (event.cancelled) stats.push(event.reason ? `superseded (${event.reason})` : 'superseded');
    if (stats.length) answer.meta.textContent += ` · ${stats.join(' · ')}`;
    if (this.asked && this.asked.generation === event.generation) {
      this.asked = null;
      this.input.value = '';
      this.setBusy(false);
    }
  }

  reset() {
    this.scroller.replaceChildren(el('p', PLACEHOLDER, 'placeholder'));
    this.answers.clear();
    this.asked = null;
    this.setBusy(false);
  }

  answerFor(generation, trigger = '') {
    let answer = this.answers.get(generation);
    if (!answer) {
      this.scroller.querySelector('.placeholder')?.remove();
      const root = el('article', undefined, 'answer streaming');
      root.dataset.generation = generation;
      const meta = el('header', trigger ? `#${generation} · ${trigger}` : `#${generation}`);
      const text = el('p', '', 'text');
      root.append(meta, text);
      stickToBottom(this.scroller, () => this.scroller.append(root));
      answer = { root, meta, text };
      this.answers.set(generation, answer);
      while (this.answers.size > MAX_ANSWERS) {
        const [oldest] = this.answers.keys();
        this.answers.get(oldest).root.remove();
        this.answers.delete(oldest);
      }
    }
    return answer;
  }
}
