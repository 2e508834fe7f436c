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

// A revision's words in place of a paragraph's spans ({text, start, end, speaker}): one span when the old
// spans had one voice (theirs, else the revision's), else a span per run of words under one voice (the voice
// of the old span under each word's middle), so a split utterance keeps its split. As
// streamtwin/outputs/shown.py's revised_spans; the page (transcript.js) uses it too.
export function revisedSpans(old, revision) {
  const voiced = old.filter((span) => span.speaker);
  const voices = new Set(voiced.map((span) => span.speaker));
  if (voices.size <= 1) {
    const speaker = voiced.length ? voiced[0].speaker : revision.speaker || '';
    return [{ text: normalise(revision.text), start: revision.start, end: revision.end, speaker }];
  }
  const distance = (span, middle) => (span.start <= middle && middle < span.end
    ? 0 : Math.min(Math.abs(span.start - middle), Math.abs(span.end - middle)));
  const out = [];
  for (const word of timedWords(revision.text, revision.start, revision.end, revision.words)) {
    const middle = (word.start + word.end) / 2;
    let under = voiced[0];
    for (const span of voiced) if (distance(span, middle) < distance(under, middle)) under = span;
    const last = out[out.length - 1];
    if (last && last.speaker === under.speaker) Object.assign(last, { text: `${last.text} ${word.text}`, end: word.end });
    else out.push({ text: word.text, start: word.start, end: word.end, speaker: under.speaker });
  }
  return out;
}

// The transcript as the page shows it at the end (a port of streamtwin/outputs/shown.py): a paragraph per
// utterance, {start, runs: [[who, text], ...]}, with every speaker.turns and speaker.named applied.
export function shownParagraphs(events) {
  const grouper = new UtteranceGrouper();
  const paragraphs = []; // {key, utterance, start, spans}
  const names = new Map();
  const carried = new Map();
  let current = null;
  const label = (paragraph, final) => {
    if (!final.speaker) return;
    for (const span of paragraph.spans) span.speaker = final.speaker;
    if (final.speaker_name) carried.set(final.speaker, final.speaker_name);
  };
  for (const event of events) {
    if (event.type === 'transcript.final') {
      grouper.add(event.text, event.start, event.end, event.utterance, event.utterance_end);
      const text = normalise(event.text);
      if (text) {
        if (!current || current.key !== grouper.lastKey) {
          current = { key: grouper.lastKey, utterance: event.utterance || 0, start: event.start, spans: [] };
          paragraphs.push(current);
        }
        current.spans.push({ text, start: event.start, end: event.end, speaker: event.speaker || '' });
        label(current, event);
      } else if (current && current.key === grouper.lastKey) label(current, event);
      if (!grouper.open) current = null;
    } else if (event.type === 'transcript.revised') {
      const paragraph = paragraphs.findLast((p) => event.utterance > 0 && p.utterance === event.utterance);
      if (paragraph && paragraph.spans.length && normalise(event.text)) {
        paragraph.spans = revisedSpans(paragraph.spans, event);
      }
    } else if (event.type === 'speaker.turns') {
      for (const turn of event.turns || []) {
        for (const paragraph of paragraphs) {
          if (!paragraph.utterance || paragraph.utterance !== turn.utterance) continue;
          for (const span of paragraph.spans) {
            const middle = (span.start + span.end) / 2;
            if (turn.start <= middle && middle < turn.end) span.speaker = turn.speaker;
          }
        }
      }
    } else if (event.type === 'speaker.named') names.set(event.speaker, event.name);
  }
  const nameOf = (label) => (label ? (names.has(label) ? names.get(label) : carried.get(label) || '') || label : '');
  const shown = [];
  for (const paragraph of paragraphs) {
    const runs = [];
    for (const span of paragraph.spans) {
      if (!span.text) continue;
      const last = runs[runs.length - 1];
      if (last && (!span.speaker || last[0] === '' || last[0] === span.speaker)) {
        last[0] = last[0] || span.speaker;
        last[1].push(span.text);
      } else runs.push([span.speaker, [span.text]]);
    }
    if (runs.length) shown.push({ start: paragraph.start, runs: runs.map(([who, texts]) => [nameOf(who), texts.join(' ')]) });
  }
  return shown;
}

// The twin's state (or null) as notes, then the transcript as the page shows it: a paragraph per utterance,
// who spoke in bold at its head and wherever the voice changes.
export function meetingNotes(events, twin) {
  const blocks = ['# Meeting notes'];
  for (const [title, lines] of notesSections(twin || {})) {
    if (lines.length) blocks.push(`## ${title}`, lines.join('\n'));
  }
  blocks.push('## Transcript');
  for (const p of shownParagraphs(events)) {
    const said = p.runs.map(([who, text]) => `${who ? `**${escapeMarkdown(who)}:** ` : ''}${escapeMarkdown(text)}`);
    blocks.push(`**${clock(p.start)}** ${said.join(' ')}`); // as streamtwin/outputs/notes.py writes it
  }
  return `${blocks.join('\n\n')}\n`;
}

export function jsonLines(events) {
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}
