// What the page's download buttons save: subtitles (SRT, WebVTT), meeting notes (Markdown) and the
// events themselves (JSONL), built from the events this page received. The subtitles and the notes are
// the same documents `streamtwin run --format srt|vtt|md` writes: this is a port of
// streamtwin/outputs/cues.py, streamtwin/outputs/subtitles.py and streamtwin/outputs/notes.py, held to the same output by a
// test (tests/test_browser_transcript.py). Pure functions: no DOM.

import { UtteranceGrouper, normalise } from './utterances.js';

const SENTENCE_END = ['.', '?', '!', '…'];
const CLAUSE_END = [',', ';', ':', '—'];
export const CUE_OPTIONS = { maxChars: 42, maxDurationS: 7.0, maxGapS: 1.5, minDurationS: 1.0 };

const length = (text) => [...text].length; // code points, as Python counts them
const endsWithAny = (text, ends) => ends.some((end) => text.endsWith(end));

export function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds || 0));
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

// --- subtitles ---------------------------------------------------------------------------------

// A final's words with times: the recogniser's when they spell its text, else spread over its span.
export function timedWords(text, start, end, words = []) {
  const tokens = normalise(text) ? normalise(text).split(' ') : [];
  const spelled = words.map((word) => String(word[0]).trim());
  if (spelled.length === tokens.length && spelled.every((token, i) => token === tokens[i])) {
    return tokens.map((token, i) => ({ text: token, start: Number(words[i][1]), end: Number(words[i][2]) }));
  }
  const step = tokens.length ? (end - start) / tokens.length : 0;
  return tokens.map((token, i) => ({ text: token, start: start + i * step, end: start + (i + 1) * step }));
}

// One line if the words fit, else two (a sentence end, then a comma, then balance decides); null for three.
export function breakLines(words, maxChars) {
  const fits = (line) => line.length === 1 || length(line.join(' ')) <= maxChars;
  if (fits(words)) return [words.join(' ')];
  let best = null; // [pause rank, longest line, split index]
  for (let split = 1; split < words.length; split += 1) {
    const first = words.slice(0, split);
    const second = words.slice(split);
    if (!fits(first) || !fits(second)) continue;
    const last = first[first.length - 1];
    const pause = endsWithAny(last, SENTENCE_END) ? 0 : endsWithAny(last, CLAUSE_END) ? 1 : 2;
    const rank = [pause, Math.max(length(first.join(' ')), length(second.join(' '))), split];
    if (best === null || rank[0] < best[0] || (rank[0] === best[0] && rank[1] < best[1])) best = rank;
  }
  if (best === null) return null;
  return [words.slice(0, best[2]).join(' '), words.slice(best[2]).join(' ')];
}

export class CueBuilder {
  constructor(options = CUE_OPTIONS) {
    Object.assign(this, options);
    this.words = []; // the open cue
    this.held = null; // closed, waiting for the next cue's start
  }

  add(words, utteranceEnd = false) {
    const done = [];
    for (const word of words) {
      if (this.words.length && this.breaksBefore(word)) this.close();
      if (!this.words.length && this.held) done.push(this.release(word.start));
      this.words.push(word);
      if (this.fullSentence()) this.close();
    }
    if (utteranceEnd) this.close();
    return done;
  }

  flush() {
    this.close();
    return this.held ? [this.release(Infinity)] : [];
  }

  breaksBefore(word) {
    const first = this.words[0];
    const last = this.words[this.words.length - 1];
    if (word.start - last.end > this.maxGapS || word.end - first.start > this.maxDurationS) return true;
    return breakLines([...this.words.map((w) => w.text), word.text], this.maxChars) === null;
  }

  fullSentence() {
    const text = this.words.map((w) => w.text).join(' ');
    return length(text) >= this.maxChars && endsWithAny(text, SENTENCE_END);
  }

  close() {
    if (!this.words.length) return;
    const lines = breakLines(this.words.map((w) => w.text), this.maxChars);
    const start = this.words[0].start;
    const end = Math.max(...this.words.map((w) => w.end));
    this.held = { start, end: Math.max(end, start), lines };
    this.words = [];
  }

  release(nextStart) {
    const held = this.held;
    this.held = null;
    return { ...held, end: Math.max(held.end, Math.min(held.start + this.minDurationS, nextStart)) };
  }
}

export function timestamp(seconds, decimalMark) {
  let millis = Math.max(0, Math.floor(seconds * 1000 + 0.5));
  const hours = Math.floor(millis / 3_600_000);
  millis -= hours * 3_600_000;
  const minutes = Math.floor(millis / 60_000);
  millis -= minutes * 60_000;
  const secs = Math.floor(millis / 1000);
  millis -= secs * 1000;
  const two = (n) => String(n).padStart(2, '0');
  return `${two(hours)}:${two(minutes)}:${two(secs)}${decimalMark}${String(millis).padStart(3, '0')}`;
}

// The finals (transcript.final events, in order) as an SRT or WebVTT document.
export function subtitles(finals, format) {
  const mark = format === 'srt' ? ',' : '.';
  const builder = new CueBuilder();
  const cues = [];
  for (const final of finals) {
    cues.push(...builder.add(timedWords(final.text, final.start, final.end, final.words), final.utterance_end));
  }
  cues.push(...builder.flush());
  const blocks = cues.map((cue, i) => {
    const timing = `${timestamp(cue.start, mark)} --> ${timestamp(cue.end, mark)}`;
    return `${format === 'srt' ? `${i + 1}\n` : ''}${timing}\n${cue.lines.join('\n')}\n\n`;
  });
  return (format === 'vtt' ? 'WEBVTT\n\n' : '') + blocks.join('');
}

// --- meeting notes -------------------------------------------------------------------------------

export function escapeMarkdown(text) {
  return normalise(text).replace(/([\\`*_[\]<>#])/g, '\\$1');
}

function bullets(items) {
  return (items || []).filter((item) => String(item).trim()).map((item) => `- ${escapeMarkdown(item)}`);
}

function notesSections(twin) {
  const actions = (twin.action_items || []).map((item) => {
    const details = [String(item.owner || ''), item.due ? `due ${item.due}` : ''].filter(Boolean).join(', ');
    return `- [ ] ${escapeMarkdown(item.text ?? '')}${details ? ` (${escapeMarkdown(details)})` : ''}`;
  });
  const people = (twin.people || []).map(
    (person) => `- ${escapeMarkdown(person.name ?? '')}${person.role ? ` (${escapeMarkdown(person.role)})` : ''}`,
  );
  const summary = escapeMarkdown(twin.summary || '');
  const scene = escapeMarkdown((twin.scene || {}).description || '');
  return [
    ['Summary', summary ? [summary] : []],
    ['Action items', actions],
    ['Decisions', bullets(twin.decisions)],
    ['Open questions', bullets(twin.open_questions)],
    ['People', people],
    ['Topics', bullets(twin.topics)],
    ['Scene', scene ? [scene] : []],
  ];
}

// The finals as the page shows them, for the notes: a revised utterance (transcript.revised) becomes one
// final with the revision's words, its first final's start and its last final's label, as
// streamtwin/outputs/notes.py writes it; subtitles keep the commits, as streamtwin/outputs/subtitles.py streams them.
export function revisedFinals(events) {
  const revisions = new Map();
  const firstStart = new Map();
  for (const event of events) {
    if (event.type === 'transcript.revised') revisions.set(event.utterance, event);
    else if (event.type === 'transcript.final' && event.text.trim() && !firstStart.has(event.utterance)) {
      firstStart.set(event.utterance, event.start);
    }
  }
  const out = [];
  for (const event of events) {
    if (event.type !== 'transcript.final') continue;
    const revision = event.utterance ? revisions.get(event.utterance) : undefined;
    if (!revision) out.push(event);
    else if (event.utterance_end) {
      const start = firstStart.get(event.utterance) ?? revision.start;
      out.push({ ...event, text: revision.text, start, end: revision.end, words: revision.words });
    }
  }
  return out;
}

// The twin's state (or null) as notes, then the finals as a paragraph per utterance.
export function meetingNotes(finals, twin) {
  const grouper = new UtteranceGrouper();
  const paragraphs = [];
  for (const f of finals) {
    paragraphs.push(...grouper.add(f.text, f.start, f.end, f.utterance, f.utterance_end, f.speaker_name || f.speaker));
  }
  paragraphs.push(...grouper.flush());
  const blocks = ['# Meeting notes'];
  for (const [title, lines] of notesSections(twin || {})) {
    if (lines.length) blocks.push(`## ${title}`, lines.join('\n'));
  }
  blocks.push('## Transcript');
  for (const p of paragraphs) {
    if (!p.text) continue;
    const who = p.speaker ? `**${escapeMarkdown(p.speaker)}:** ` : ''; // as streamtwin/outputs/notes.py writes it
    blocks.push(`**${clock(p.start)}** ${who}${escapeMarkdown(p.text)}`);
  }
  return `${blocks.join('\n\n')}\n`;
}

export function jsonLines(events) {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}
