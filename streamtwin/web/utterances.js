// Transcript finals (commits, often a few words) grouped into utterances: the page's paragraphs.
// The same rules as streamtwin/utterances.py (a test holds the two to the same output): finals with
// an `utterance` number belong to it and `utterance_end` closes it; finals numbered 0 (older producers)
// start a new utterance after a pause of more than `gapS`, and one ending in "?" closes at once.

export class UtteranceGrouper {
  constructor(gapS = 0.6) {
    this.gapS = gapS;
    this.open = null; // {key, producerId, start, end, parts}
    this.nextKey = 1;
    this.lastKey = null; // the utterance the last non-empty final joined (open or not)
  }

  get pendingText() {
    return this.open ? this.open.parts.join(' ') : '';
  }

  // One final; returns the utterances it completed ({key, text, start, end, speaker}), in order. `speaker`
  // is the final's label (speaker_name or speaker): the utterance takes its last final's, as in Python.
  add(text, start, end, utterance = 0, utteranceEnd = false, speaker = '') {
    const words = normalise(text);
    const done = [];
    if (this.open && this.startsNew(start, utterance)) done.push(this.close());
    if (words) {
      if (!this.open) {
        this.open = { key: this.nextKey, producerId: utterance, start, end, parts: [], speaker: '' };
        this.nextKey += 1;
      }
      this.open.parts.push(words);
      this.lastKey = this.open.key;
      this.open.end = Math.max(this.open.end, end);
    }
    if (speaker && this.open) this.open.speaker = speaker;
    const ends = utterance > 0 ? utteranceEnd : words.endsWith('?');
    if (ends && this.open) done.push(this.close());
    return done;
  }

  flush() {
    return this.open ? [this.close()] : [];
  }

  startsNew(start, utterance) {
    if (utterance > 0 || this.open.producerId > 0) return utterance !== this.open.producerId;
    return start - this.open.end > this.gapS;
  }

  close() {
    const { key, parts, start, end, speaker } = this.open;
    this.open = null;
    return { key, text: parts.join(' '), start, end, speaker };
  }
}

export function normalise(text) {
  return String(text ?? '').split(/\s+/).filter(Boolean).join(' ');
}
