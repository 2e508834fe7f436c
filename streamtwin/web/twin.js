// The digital twin panel: the whole twin from `twin.state`, then each `twin.patch` (RFC 6902) applied in order.

import { el } from './dom.js';
import { applyPatch, PatchError } from './jsonpatch.js';

const $ = (id) => document.getElementById(id);

function fillList(list, items, render) {
  list.replaceChildren(...items.map(render));
}

export class TwinPanel {
  // `notify(text)` tells the person about a twin this page could not follow.
  constructor(notify) {
    this.notify = notify;
    this.twin = null; // {version, state}
    this.ui = {
      root: $('twin'), version: $('twin-version'), summary: $('twin-summary'), actions: $('twin-actions'),
      decisions: $('twin-decisions'), questions: $('twin-questions'), topics: $('twin-topics'),
      people: $('twin-people'), scene: $('twin-scene'),
    };
  }

  get state() {
    return this.twin?.state ?? null;
  }

  onState(event) {
    this.twin = { version: event.version, state: event.state };
    this.render();
  }

  onPatch(event) {
    const twin = this.twin;
    if (!twin || event.version !== twin.version + 1) {
      this.notify(`twin out of sync (have v${twin ? twin.version : '–'}, got v${event.version}); waiting for the next state`);
      return;
    }
    try {
      this.twin = { version: event.version, state: applyPatch(twin.state, event.patch) };
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      this.notify(`could not apply twin patch v${event.version}: ${error.message}`);
      return;
    }
    this.render();
  }

  reset() {
    const t = this.ui;
    this.twin = null;
    for (const list of [t.actions, t.decisions, t.questions, t.topics, t.people]) list.replaceChildren();
    t.summary.textContent = 'Waiting for the first update…';
    t.summary.classList.add('placeholder');
    t.version.textContent = '';
    t.scene.textContent = '';
  }

  render() {
    const { version } = this.twin;
    const state = this.twin.state || {};
    const t = this.ui;
    t.root.dataset.version = version;
    t.version.textContent = `v${version}`;
    const summary = typeof state.summary === 'string' ? state.summary.trim() : '';
    t.summary.textContent = summary || 'No summary yet.';
    t.summary.classList.toggle('placeholder', !summary);
    fillList(t.actions, state.action_items || [], (item) => {
      const li = el('li', item.text);
      const who = [item.owner, item.due].filter(Boolean).join(' · ');
      if (who) li.append(el('span', who, 'who'));
      return li;
    });
    fillList(t.decisions, state.decisions || [], (text) => el('li', text));
    fillList(t.questions, state.open_questions || [], (text) => el('li', text));
    fillList(t.topics, state.topics || [], (text) => el('li', text));
    fillList(t.people, state.people || [], (person) => el('li', person.role ? `${person.name} (${person.role})` : person.name));
    t.scene.textContent = state.scene?.description || '';
  }
}
