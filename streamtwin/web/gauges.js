// The latency gauges: speech to transcript, first token, tokens/s and media time.

import { clock } from './exports.js';

const $ = (id) => document.getElementById(id);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : null;
}

// Media time -> wall time: the event that left the server soonest after its media arrived
// (progress events, sent as audio comes in) pins the clock; see docs/protocol.md.
export class Gauges {
  constructor() {
    this.ui = { asr: $('gauge-asr'), ttft: $('gauge-ttft'), rate: $('gauge-rate'), media: $('gauge-media') };
    this.reset();
  }

  reset() {
    this.origin = null;
    this.asr = [];
    for (const gauge of Object.values(this.ui)) gauge.textContent = '–';
  }

  observe(event) {
    if (event.media_time === null || event.media_time === undefined) return;
    if (event.type === 'progress') {
      const offset = event.wall - event.media_time;
      if (this.origin === null || offset < this.origin) this.origin = offset;
      this.ui.media.textContent = clock(event.media_time);
    }
  }

  final(event) {
    if (this.origin === null) return;
    const ms = (event.wall - (this.origin + event.end)) * 1000;
    this.asr = [...this.asr.slice(-19), ms];
    this.ui.asr.textContent = `${Math.round(ms)} ms (median ${Math.round(median(this.asr))})`;
  }

  done(event) {
    if (event.cancelled) return;
    if (event.ttft_ms !== null && event.ttft_ms !== undefined) {
      this.ui.ttft.textContent = `${Math.round(event.ttft_ms)} ms`;
    }
    if (event.tokens_per_s) this.ui.rate.textContent = `${event.tokens_per_s.toFixed(1)}`;
  }
}
