// "Ask all meetings": a question over every past session of the event log (serve --redis), on a /ws connection
// of its own (docs/protocol.md, "Asking all past meetings"). GET /meetings says whether the server offers it;
// the answer streams in as a draft, then shows with its quotes checked against the transcripts and, under it,
// their sources (meeting, time, speaker). Only this page sees it.

import { el } from './dom.js';

function stamp(seconds) { // media seconds as mm:ss (h:mm:ss past an hour), as the answers cite them
  const whole = Math.max(0, Math.floor(seconds));
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const two = (n) => String(n).padStart(2, '0');
  return h ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`;
}

export class MeetingsBox {
  // section: the card (hidden until offered); form, input: the question; output: where the answer goes;
  // token: the access token of this page's URL (the server wants it when it has one).
  constructor({ section, form, input, output, token }) {
    Object.assign(this, { section, form, input, output, token });
    this.ws = null;
    this.pending = null; // a question waiting for the connection's welcome
    this.busy = false;
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.ask();
    });
  }

  async offer() {
    let offered = {};
    try {
      const reply = await fetch('meetings', { cache: 'no-store' });
      if (reply.ok) offered = await reply.json();
    } catch {
      // no server answer: the box stays away
    }
    if (offered.max_question_chars) this.input.maxLength = offered.max_question_chars;
    this.section.hidden = offered.ask !== true;
    this.section.dataset.offered = String(offered.ask === true); // decided (tests wait for it)
  }

  ask() {
    const text = this.input.value.trim();
    if (!text || this.busy) return;
    this.setBusy(true);
    this.show('status', 'Sending…');
    if (this.ws?.readyState === WebSocket.OPEN && this.ws.welcomed) {
      this.ws.send(JSON.stringify({ type: 'ask', text }));
    } else {
      this.pending = text;
      if (!this.ws) this.connect();
    }
  }

  connect() {
    const url = new URL('ws', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'hello', role: 'meetings', token: this.token })));
    ws.addEventListener('message', (message) => {
      try {
        this.onMessage(ws, JSON.parse(message.data));
      } catch {
        this.fail('the server sent something that is not JSON');
      }
    });
    ws.addEventListener('close', () => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.pending = null;
      if (this.busy) this.fail('the connection closed before the answer came; ask again');
    });
  }

  onMessage(ws, message) {
    switch (message.type) {
      case 'welcome':
        ws.welcomed = true;
        if (this.pending) ws.send(JSON.stringify({ type: 'ask', text: this.pending }));
        this.pending = null;
        break;
      case 'meetings.started':
        this.show('status', `Reading ${message.meetings} meeting${message.meetings === 1 ? '' : 's'}…`);
        this.draft = this.show('draft', '');
        this.draft.setAttribute('aria-hidden', 'true'); // read out once checked, not token by token
        break;
      case 'meetings.delta':
        if (this.draft) this.draft.textContent += message.text;
        break;
      case 'meetings.done':
        this.done(message);
        break;
      case 'error':
        this.fail(`${message.message} (${message.code})`);
        break;
      default:
        break;
    }
  }

  show(kind, text) {
    const node = el('p', text, kind);
    this.output.replaceChildren(node);
    return node;
  }

  done(answer) {
    this.draft = null;
    const header = el('p', `${answer.question} · ${answer.meetings.length} meetings, ${answer.mode}`, 'meta');
    const body = el('p', answer.answer, 'text');
    const sources = el('ol', undefined, 'sources');
    for (const source of answer.sources) {
      const item = el('li');
      item.append(el('span', `${source.meeting} · ${stamp(source.start)} · ${source.speaker || 'unknown'}`, 'where'),
        el('q', source.quote));
      sources.append(item);
    }
    this.output.replaceChildren(header, body);
    if (answer.sources.length) this.output.append(el('h3', 'Sources'), sources);
    if (answer.rejected_quotes.length) {
      const left = `${answer.rejected_quotes.length} quote(s) found in no transcript were left out.`;
      this.output.append(el('p', left, 'meta'));
    }
    this.input.value = '';
    this.setBusy(false);
  }

  fail(text) {
    this.show('error', text);
    this.pending = null;
    this.setBusy(false);
  }

  setBusy(busy) {
    this.busy = busy;
    this.form.querySelector('button').disabled = busy;
    this.output.setAttribute('aria-busy', busy ? 'true' : 'false');
    if (!busy) this.input.focus();
  }
}
