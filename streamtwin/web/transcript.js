// The transcript panel: a paragraph per utterance with its time stamp, the tentative partial continuing
// the open paragraph in grey, auto-scroll that pauses while the reader scrolls back, new finals announced
// to screen readers (a polite live region), and the download buttons.

import { el } from './dom.js';
import { clock, jsonLines, meetingNotes, revisedFinals, subtitles } from './exports.js';
import { UtteranceGrouper, normalise } from './utterances.js';

const AT_BOTTOM_PX = 24;
const ANNOUNCE_EVERY_MS = 400; // finals arriving together (a snapshot, a burst) are read as one
const ANNOUNCED_KEPT = 3;

export class TranscriptView {
  constructor({ scroller, follow, announcer }) {
    this.scroller = scroller;
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
        this.current.append(' ', el('span', text, 'final'));
        this.label(this.current, event);
        this.announce(text);
      }
      else if (this.current?.dataset.key === String(this.grouper.lastKey)) this.label(this.current, event);
      if (!this.grouper.open) this.closeParagraph();
      this.showPartial('');
    });
  }

  // The utterance decoded again once it ended: its words replace the paragraph's finals (marked, so a
  // reader sees the text changed); the time and the speaker stay.
  revised(event) {
    const paragraphs = this.scroller.querySelectorAll(`p.utterance[data-utterance="${Number(event.utterance)}"]`);
    const paragraph = paragraphs[paragraphs.length - 1];
    const text = normalise(event.text);
    if (!paragraph || !text) return;
    this.update(() => {
      const finals = [...paragraph.querySelectorAll('.final')];
      if (!finals.length) return;
      const span = el('span', text, 'final revised');
      span.title = `revised once the utterance ended (was: ${normalise(event.replaces)})`;
      finals[0].replaceWith(span);
      for (const old of finals.slice(1)) {
        if (old.previousSibling?.nodeType === Node.TEXT_NODE) old.previousSibling.remove();
        old.remove();
      }
    });
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
      tag = el('b', '', 'speaker');
      paragraph.querySelector('time').after(' ', tag);
    }
    tag.textContent = event.speaker_name || event.speaker;
    tag.title = event.speaker;
    const slot = this.slots.get(event.speaker) ?? (Number(event.speaker.replace(/\D/g, '')) - 1) % 8 + 1;
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
    md: () => ['text/markdown', meetingNotes(revisedFinals(events()), twin())],
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
