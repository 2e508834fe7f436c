// The transcript panel: a paragraph per utterance with its time stamp, the tentative partial continuing
// the open paragraph in grey, auto-scroll that pauses while the reader scrolls back, new finals announced
// to screen readers (a polite live region), and the download buttons.

import { el } from './dom.js';
import { clock, jsonLines, meetingNotes, revisedSpans, subtitles } from './exports.js';
import { UtteranceGrouper, normalise } from './utterances.js';

const AT_BOTTOM_PX = 24;
const ANNOUNCE_EVERY_MS = 400; // finals arriving together (a snapshot, a burst) are read as one
const ANNOUNCED_KEPT = 3;

export class TranscriptView {
  constructor({ scroller, follow, announcer, onRename = null }) {
    this.scroller = scroller;
    this.onRename = onRename; // (label, name): a viewer names a voice (the server answers with speaker.named)
    this.names = new Map(); // voice label -> its name (speaker.named)
    this.carried = new Map(); // voice label -> the name its latest final carried
    this.follow = follow;
    this.announcer = announcer;
    this.tentative = el('span', '', 'partial');
    this.following = true;
    this.slots = new Map(); // a room's participant name -> colour slot (participant.joined)
    this.toAnnounce = [];
    this.announceTimer = null;
    scroller.addEventListener('scroll', () => {
      this.following = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < AT_BOTTOM_PX;
      if (this.following) follow.hidden = true;
    });
    follow.addEventListener('click', () => {
      this.following = true;
      follow.hidden = true;
      scroller.scrollTop = scroller.scrollHeight;
    });
    this.reset();
  }

  reset() {
    this.grouper = new UtteranceGrouper();
    this.current = null; // the paragraph of the open utterance, or one holding only a partial
    this.tentative.textContent = '';
    this.tentative.remove();
    this.scroller.replaceChildren();
    this.announcer.replaceChildren();
    this.slots.clear();
    this.names.clear();
    this.carried.clear();
    this.follow.hidden = true;
    this.following = true;
  }

  final(event) {
    this.update(() => {
      this.grouper.add(event.text, event.start, event.end, event.utterance, event.utterance_end);
      const text = normalise(event.text);
      if (text) {
        const key = String(this.grouper.lastKey);
        if (this.current?.dataset.key && this.current.dataset.key !== key) this.current = null;
        if (!this.current) this.current = this.paragraph(event.start);
        if (!this.current.dataset.key) { // the first final of the utterance: it starts the paragraph
          this.current.dataset.key = key;
          if (event.utterance) this.current.dataset.utterance = String(event.utterance);
          this.stamp(this.current, event.start);
        }
        this.tentative.remove();
        const span = el('span', text, 'final');
        Object.assign(span.dataset, { start: String(event.start), end: String(event.end), speaker: event.speaker || '' });
        this.current.append(' ', span);
        this.label(this.current, event);
        this.announce(text);
      }
      else if (this.current?.dataset.key === String(this.grouper.lastKey)) this.label(this.current, event);
      if (!this.grouper.open) this.closeParagraph();
      this.showPartial('');
    });
  }

  // The utterance decoded again once it ended: its words replace the paragraph's finals (marked, so a
  // reader sees the text changed); the time stays, and so do the voices: where they changed inside the
  // paragraph, the revision is cut there (revisedSpans, as the notes do).
  revised(event) {
    const paragraphs = this.scroller.querySelectorAll(`p.utterance[data-utterance="${Number(event.utterance)}"]`);
    const paragraph = paragraphs[paragraphs.length - 1];
    if (!paragraph || !normalise(event.text)) return;
    this.update(() => {
      const finals = [...paragraph.querySelectorAll('.final')];
      if (!finals.length) return;
      const old = finals.map((span) => ({
        start: Number(span.dataset.start), end: Number(span.dataset.end), speaker: span.dataset.speaker || '',
      }));
      const made = revisedSpans(old, event).map((part) => {
        const span = el('span', part.text, 'final revised');
        span.title = `revised once the utterance ended (was: ${normalise(event.replaces)})`;
        Object.assign(span.dataset, { start: String(part.start), end: String(part.end), speaker: part.speaker });
        return span;
      });
      finals[0].replaceWith(made[0]);
      made.slice(1).reduce((before, span) => { before.after(' ', span); return span; }, made[0]);
      for (const old of finals.slice(1)) {
        if (old.previousSibling?.nodeType === Node.TEXT_NODE) old.previousSibling.remove();
        old.remove();
      }
      this.retag(paragraph);
    });
  }

  // Earlier speech changes voice (speaker.turns): the finals of each turn's utterance whose middle lies in it take
  // its label; a paragraph that now holds two voices shows a tag where the voice changes.
  turns(event) {
    for (const turn of event.turns || []) {
      const selector = `p.utterance[data-utterance="${Number(turn.utterance)}"]`;
      for (const paragraph of this.scroller.querySelectorAll(selector)) {
        for (const span of paragraph.querySelectorAll('.final')) {
          const middle = (Number(span.dataset.start) + Number(span.dataset.end)) / 2;
          if (middle >= turn.start && middle < turn.end) span.dataset.speaker = turn.speaker;
        }
        this.retag(paragraph);
      }
    }
  }

  // A voice takes a name (speaker.named): every tag of that voice shows it.
  named(event) {
    this.names.set(event.speaker, event.name);
    for (const tag of this.scroller.querySelectorAll('.speaker')) {
      if (tag.dataset.label === event.speaker) tag.textContent = event.name || event.speaker;
    }
  }

  // A room's participant: their colour for the paragraphs they speak.
  participant(event) {
    this.slots.set(event.name, event.slot);
  }

  partial(event) {
    this.update(() => {
      let text = normalise(event.text);
      // In a room another participant may be mid-sentence: say whose words the grey text is.
      const current = this.current?.querySelector('.speaker')?.textContent;
      if (text && event.speaker && current && current !== event.speaker) text = `${event.speaker}: ${text}`;
      if (text && !this.current) this.current = this.paragraph(event.start);
      this.showPartial(text);
    });
  }

  // --- internals -----------------------------------------------------------------------------------

  paragraph(start) {
    const paragraph = el('p', undefined, 'utterance');
    paragraph.append(el('time'));
    this.stamp(paragraph, start);
    this.scroller.append(paragraph);
    return paragraph;
  }

  stamp(paragraph, start) {
    const time = paragraph.querySelector('time');
    time.textContent = clock(start);
    time.dateTime = `PT${Math.max(0, Math.floor(start))}S`;
  }

  // Who spoke (speaker labels on, or a room's participant): the latest final's label, so the utterance's
  // last one holds; a colour per voice (S1, S2, ...) or participant, the name once the voice gave one.
  label(paragraph, event) {
    if (!event.speaker) return;
    let tag = paragraph.querySelector('.speaker');
    if (!tag) {
      tag = this.tag();
      paragraph.querySelector('time').after(' ', tag);
    }
    if (event.speaker_name) this.carried.set(event.speaker, event.speaker_name);
    this.show(tag, event.speaker);
    for (const span of paragraph.querySelectorAll('.final')) span.dataset.speaker = event.speaker; // the end's holds
  }

  // The paragraph's tags from its finals' voices: the first voice in the head tag, a tag at each change.
  retag(paragraph) {
    for (const inline of paragraph.querySelectorAll('.speaker.inline')) {
      if (inline.previousSibling?.nodeType === Node.TEXT_NODE) inline.previousSibling.remove();
      inline.remove();
    }
    let previous = null;
    for (const span of paragraph.querySelectorAll('.final')) {
      const voice = span.dataset.speaker;
      if (!voice) continue;
      if (previous === null) {
        const head = paragraph.querySelector('.speaker');
        if (head) this.show(head, voice);
      } else if (voice !== previous) {
        const tag = this.tag('inline');
        this.show(tag, voice);
        span.before(tag, ' ');
      }
      previous = voice;
    }
  }

  tag(extra = '') {
    const tag = el('b', '', extra ? `speaker ${extra}` : 'speaker');
    tag.addEventListener('click', () => {
      const label = tag.dataset.label;
      if (!this.onRename || !/^S\d+$/.test(label || '')) return; // a room's participants keep their names
      const name = window.prompt(`A name for ${label}`, this.names.get(label) || '');
      if (name !== null) this.onRename(label, name);
    });
    return tag;
  }

  // A voice's latest name (speaker.named; "" when it lost it), else the name its finals carried, else its label.
  show(tag, label) {
    tag.textContent = (this.names.has(label) ? this.names.get(label) : this.carried.get(label)) || label;
    tag.title = /^S\d+$/.test(label) ? `${label}: click to name this voice` : label;
    tag.dataset.label = label;
    const slot = this.slots.get(label) ?? (Number(label.replace(/\D/g, '')) - 1) % 8 + 1;
    tag.dataset.voice = String(Number.isFinite(slot) ? slot : 1);
  }

  showPartial(text) {
    this.tentative.textContent = text && this.current?.querySelector('.final') ? ` ${text}` : text;
    if (text && this.current) {
      this.current.append(this.tentative);
    } else {
      this.tentative.remove();
      if (this.current && !this.current.dataset.key) this.closeParagraph(); // a partial that came to nothing
    }
  }

  closeParagraph() {
    if (this.current && !this.current.querySelector('.final')) this.current.remove();
    this.current = null;
  }

  // Keep the newest text in view unless the reader has scrolled back; then offer a way down.
  update(change) {
    const follow = this.following;
    change();
    if (follow) this.scroller.scrollTop = this.scroller.scrollHeight;
    else if (this.scroller.scrollHeight > this.scroller.clientHeight) this.follow.hidden = false;
  }

  announce(text) {
    this.toAnnounce.push(text);
    this.announceTimer ??= setTimeout(() => {
      this.announceTimer = null;
      this.announcer.append(el('p', this.toAnnounce.slice(-ANNOUNCED_KEPT).join(' ')));
      this.toAnnounce = [];
      while (this.announcer.children.length > ANNOUNCED_KEPT) this.announcer.firstElementChild.remove();
    }, ANNOUNCE_EVERY_MS);
  }
}

// The download buttons (data-format md | srt | vtt | jsonl): documents built from the events received.
export function wireDownloads(buttons, { events, twin }) {
  const build = {
    md: () => ['text/markdown', meetingNotes(events(), twin())],
    srt: () => ['application/x-subrip', subtitles(finalsOf(events()), 'srt')],
    vtt: () => ['text/vtt', subtitles(finalsOf(events()), 'vtt')],
    jsonl: () => ['application/x-ndjson', jsonLines(events())],
  };
  for (const button of buttons) {
    const format = button.dataset.format;
    button.addEventListener('click', () => {
      const [type, text] = build[format]();
      const session = events().find((event) => event.session)?.session || 'session';
      const link = el('a');
      link.href = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
      link.download = `streamtwin-${session}.${format}`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 1000);
    });
  }
}

function finalsOf(events) {
  return events.filter((event) => event.type === 'transcript.final');
}
