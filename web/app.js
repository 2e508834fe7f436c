// The streamtwin page: publish camera and microphone over WebRTC, or watch a running session,
// and render the session's events (docs/protocol.md): transcript, assistant, twin, keyframes.
// Everything shown comes from the /ws protocol; all text goes through textContent, never HTML.

import { applyPatch, PatchError } from './jsonpatch.js';

const params = new URLSearchParams(location.search);
const role = params.get('role') === 'viewer' ? 'viewer' : 'publisher';
const token = params.get('token') || '';

const $ = (id) => document.getElementById(id);
const ui = {
  status: $('status'), share: $('share'), viewerUrl: $('viewer-url'), copy: $('copy'),
  messages: $('messages'), preview: $('preview'), previewNote: $('preview-note'), latestFrame: $('latest-frame'),
  controls: $('controls'), start: $('start'), stop: $('stop'),
  transcript: $('transcript'), partial: $('partial'), assistant: $('assistant'), timeline: $('timeline'),
  gauges: { asr: $('gauge-asr'), ttft: $('gauge-ttft'), rate: $('gauge-rate'), media: $('gauge-media') },
  twin: {
    root: $('twin'), version: $('twin-version'), summary: $('twin-summary'), actions: $('twin-actions'),
    decisions: $('twin-decisions'), questions: $('twin-questions'), topics: $('twin-topics'),
    people: $('twin-people'), scene: $('twin-scene'),
  },
};

const MAX_KEYFRAMES = 60;
const MAX_ANSWERS = 30;
const ICE_GATHERING_TIMEOUT_MS = 5000;

// --- small helpers -------------------------------------------------------------------------

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds || 0));
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

function setStatus(state, text) {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
}

function showMessage(text, kind = 'error', sticky = kind === 'error') {
  const item = el('li', text, kind);
  const close = el('button', '×', 'dismiss');
  close.type = 'button';
  close.setAttribute('aria-label', 'dismiss');
  close.addEventListener('click', () => item.remove());
  item.append(close);
  ui.messages.append(item);
  if (!sticky) setTimeout(() => item.remove(), 8000);
}

function stickToBottom(container, update) {
  const atBottom = container.scrollHeight - container.scrollTop - container.clientHeight < 40;
  update();
  if (atBottom) container.scrollTop = container.scrollHeight;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : null;
}

// --- gauges ----------------------------------------------------------------------------------

// Media time -> wall time: the event that left the server soonest after its media arrived
// (progress events, sent as audio comes in) pins the clock; see docs/protocol.md.
const gauges = {
  origin: null,
  asr: [],
  observe(event) {
    if (event.media_time === null || event.media_time === undefined) return;
    if (event.type === 'progress') {
      const offset = event.wall - event.media_time;
      if (this.origin === null || offset < this.origin) this.origin = offset;
      ui.gauges.media.textContent = clock(event.media_time);
    }
  },
  final(event) {
    if (this.origin === null) return;
    const ms = (event.wall - (this.origin + event.end)) * 1000;
    this.asr = [...this.asr.slice(-19), ms];
    ui.gauges.asr.textContent = `${Math.round(ms)} ms (median ${Math.round(median(this.asr))})`;
  },
  done(event) {
    if (event.cancelled) return;
    if (event.ttft_ms !== null && event.ttft_ms !== undefined) {
      ui.gauges.ttft.textContent = `${Math.round(event.ttft_ms)} ms`;
    }
    if (event.tokens_per_s) ui.gauges.rate.textContent = `${event.tokens_per_s.toFixed(1)}`;
  },
};

// --- renderers ---------------------------------------------------------------------------------

function renderFinal(event) {
  stickToBottom(ui.transcript, () => {
    const line = el('p', undefined, 'final');
    line.append(el('time', clock(event.start)), document.createTextNode(` ${event.text}`));
    ui.transcript.insertBefore(line, ui.partial);
    ui.partial.textContent = '';
  });
}

function renderPartial(event) {
  stickToBottom(ui.transcript, () => { ui.partial.textContent = event.text; });
}

const answers = new Map(); // generation -> {root, text}

function answerFor(generation, trigger = '') {
  let answer = answers.get(generation);
  if (!answer) {
    ui.assistant.querySelector('.placeholder')?.remove();
    const root = el('article', undefined, 'answer streaming');
    root.dataset.generation = generation;
    const meta = el('header', trigger ? `#${generation} · ${trigger}` : `#${generation}`);
    const text = el('p', '', 'text');
    root.append(meta, text);
    stickToBottom(ui.assistant, () => ui.assistant.append(root));
    answer = { root, meta, text };
    answers.set(generation, answer);
    while (answers.size > MAX_ANSWERS) {
      const [oldest] = answers.keys();
      answers.get(oldest).root.remove();
      answers.delete(oldest);
    }
  }
  return answer;
}

function renderDone(event) {
  const answer = answerFor(event.generation);
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
}

let twin = null; // {version, state}

function fillList(list, items, render) {
  list.replaceChildren(...items.map(render));
}

function renderTwin() {
  const state = twin.state || {};
  const t = ui.twin;
  t.root.dataset.version = twin.version;
  t.version.textContent = `v${twin.version}`;
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

function onTwinState(event) {
  twin = { version: event.version, state: event.state };
  renderTwin();
}

function onTwinPatch(event) {
  if (!twin || event.version !== twin.version + 1) {
    showMessage(`twin out of sync (have v${twin ? twin.version : '–'}, got v${event.version}); waiting for the next state`, 'notice');
    return;
  }
  try {
    twin = { version: event.version, state: applyPatch(twin.state, event.patch) };
  } catch (error) {
    if (!(error instanceof PatchError)) throw error;
    showMessage(`could not apply twin patch v${event.version}: ${error.message}`, 'notice');
    return;
  }
  renderTwin();
}

function renderObservation(event) {
  if (!event.thumbnail) return;
  const item = el('li');
  const image = el('img');
  image.src = `data:image/jpeg;base64,${event.thumbnail}`;
  image.alt = event.note || event.kind;
  image.width = event.width || 160;
  image.height = event.height || 90;
  const label = el('span', `${clock(event.media_time)} ${event.kind.replaceAll('_', ' ')}`);
  item.title = event.note || '';
  item.append(image, label);
  ui.timeline.append(item);
  while (ui.timeline.children.length > MAX_KEYFRAMES) ui.timeline.firstElementChild.remove();
  ui.timeline.scrollLeft = ui.timeline.scrollWidth;
  if (role === 'viewer') { // viewers get no video: the latest keyframe stands in for it
    ui.latestFrame.src = image.src;
    ui.latestFrame.hidden = false;
    ui.previewNote.hidden = true;
  }
}

// --- events and protocol messages ------------------------------------------------------------------

function onEvent(event) {
  gauges.observe(event);
  switch (event.type) {
    case 'session.started':
      setStatus('live', role === 'viewer' ? 'watching' : 'live');
      break;
    case 'transcript.final':
      renderFinal(event);
      gauges.final(event);
      break;
    case 'transcript.partial':
      renderPartial(event);
      break;
    case 'assistant.started':
      answerFor(event.generation, event.trigger);
      break;
    case 'assistant.delta':
      stickToBottom(ui.assistant, () => { answerFor(event.generation).text.textContent += event.text; });
      break;
    case 'assistant.done':
      renderDone(event);
      gauges.done(event);
      break;
    case 'twin.state':
      onTwinState(event);
      break;
    case 'twin.patch':
      onTwinPatch(event);
      break;
    case 'vision.observation':
      renderObservation(event);
      break;
    case 'error':
      showMessage(`${event.fatal ? 'Error' : 'Warning'}: ${event.message}`, event.fatal ? 'error' : 'notice');
      break;
    case 'session.ended':
      sessionEnded = true;
      setStatus('ended', `session ended (${(event.stats?.audio_s ?? 0).toFixed(1)} s of audio)`);
      stopMedia();
      break;
    default:
      break; // progress and future event types
  }
}

let ws = null;
let pc = null;
let stream = null;
let sessionEnded = false;
let stopping = false;
let lastHello = null; // what to say again when the socket comes back
let resume = null; // { session, token, until }: a publisher may come back to its session until then
let retries = 0;
let welcomedBefore = false; // a later welcome (reconnected) is followed by a fresh snapshot
let iceServers = [];

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 3000];
const FINAL_CLOSE_CODES = [1000, 1001, 1008, 1011]; // ended, server leaving, refused, server error

function onMessage(message) {
  if ('v' in message) return onEvent(message); // every pipeline event carries the schema version
  switch (message.type) {
    case 'welcome':
      onWelcome(message);
      break;
    case 'answer':
      pc?.setRemoteDescription({ type: 'answer', sdp: message.sdp })
        .catch((error) => fail(`the server's answer was not accepted: ${error.message}`));
      break;
    case 'error':
      showMessage(`${message.message} (${message.code})`, message.fatal ? 'error' : 'notice');
      if (message.fatal) setStatus('error', message.code.replace(/_/g, ' '));
      break;
    case 'notice':
      showMessage(message.message, 'notice', false);
      if (message.code === 'media_lost' && role === 'publisher') offerAgain();
      break;
    default:
      break;
  }
}

function onWelcome(welcome) {
  retries = 0;
  if (welcomedBefore) resetView(); // the snapshot of what was missed follows
  welcomedBefore = true;
  if (role === 'viewer') {
    setStatus('live', `watching ${welcome.session}`);
    return;
  }
  iceServers = welcome.ice_servers || [];
  // The viewer link carries this session's viewer token, never the access token.
  ui.viewerUrl.value = new URL(welcome.viewer_url, location.href).href;
  ui.share.hidden = false;
  resume = { session: welcome.session, token: welcome.resume_token, graceMs: welcome.resume_grace_s * 1000 };
  lastHello = { type: 'hello', role: 'publisher', session: welcome.session, resume: welcome.resume_token };
  if (welcome.resumed && welcome.media && pc?.connectionState === 'connected') {
    setStatus('live', 'live (reconnected)');
    return;
  }
  setStatus('connecting', 'connecting media…');
  offerAgain();
}

function offerAgain() {
  if (!stream || stopping) return;
  pc?.close();
  startWebRTC(iceServers).catch((error) => fail(`WebRTC failed: ${error.message}`));
}

function openSocket(hello) {
  const url = new URL('ws', location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  if (token) url.searchParams.set('token', token);
  const socket = new WebSocket(url);
  ws = socket;
  socket.addEventListener('open', () => socket.send(JSON.stringify(hello)));
  socket.addEventListener('message', (message) => {
    let parsed;
    try {
      parsed = JSON.parse(message.data);
    } catch {
      showMessage('the server sent something that is not JSON', 'notice');
      return;
    }
    onMessage(parsed);
  });
  socket.addEventListener('close', (close) => onClose(socket, close));
}

function onClose(socket, close) {
  if (ws !== socket) return;
  ws = null;
  const refused = ui.status.dataset.state === 'error';
  if (sessionEnded || stopping || refused || FINAL_CLOSE_CODES.includes(close.code)) {
    if (!sessionEnded && !refused) setStatus('ended', close.reason || 'closed');
    stopMedia();
    return;
  }
  // The connection dropped: come back by ourselves (a publisher to the same session, with its resume token).
  const delay = RECONNECT_DELAYS_MS[Math.min(retries, RECONNECT_DELAYS_MS.length - 1)];
  retries += 1;
  if (role === 'publisher') {
    if (!resume) {
      fail(`disconnected${close.reason ? `: ${close.reason}` : ''}`);
      stopMedia();
      return;
    }
    resume.until ??= Date.now() + resume.graceMs;
    if (Date.now() + delay > resume.until) {
      fail('disconnected, and the session could not be resumed in time');
      stopMedia();
      return;
    }
  } else if (retries > 20) {
    fail('disconnected');
    return;
  }
  setStatus('connecting', 'reconnecting…');
  setTimeout(() => openSocket(lastHello), delay);
}

// --- publishing ------------------------------------------------------------------------------------

function resetView() {
  ui.transcript.replaceChildren(ui.partial);
  ui.partial.textContent = '';
  ui.assistant.replaceChildren(el('p', 'Comments and answers stream here while the session runs.', 'placeholder'));
  answers.clear();
  ui.timeline.replaceChildren();
  twin = null;
  for (const list of [ui.twin.actions, ui.twin.decisions, ui.twin.questions, ui.twin.topics, ui.twin.people]) {
    list.replaceChildren();
  }
  ui.twin.summary.textContent = 'Waiting for the first update…';
  ui.twin.summary.classList.add('placeholder');
  ui.twin.version.textContent = '';
  ui.twin.scene.textContent = '';
  gauges.origin = null;
  gauges.asr = [];
  for (const gauge of Object.values(ui.gauges)) gauge.textContent = '–';
  ui.messages.replaceChildren();
}

async function start() {
  ui.start.disabled = true;
  sessionEnded = false;
  resetView();
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      // Browser voice processing damages speech for recognition (see ../docs/protocol.md).
      audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
      video: { width: { ideal: 640 }, height: { ideal: 480 } },
    });
  } catch (error) {
    ui.start.disabled = false;
    fail(`camera or microphone unavailable: ${error.message}`);
    return;
  }
  ui.preview.srcObject = stream;
  ui.previewNote.hidden = true;
  ui.stop.disabled = false;
  stopping = false;
  resume = null;
  welcomedBefore = false;
  lastHello = { type: 'hello', role: 'publisher', options: { source: 'browser' } };
  openSocket(lastHello);
}

function iceGatheringComplete(connection) {
  // aiortc does not trickle ICE: the offer must carry every candidate.
  if (connection.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (connection.iceGatheringState !== 'complete') return;
      connection.removeEventListener('icegatheringstatechange', done);
      resolve();
    };
    connection.addEventListener('icegatheringstatechange', done);
    setTimeout(resolve, ICE_GATHERING_TIMEOUT_MS); // an unreachable STUN server must not hang us
  });
}

async function startWebRTC(iceServers) {
  pc = new RTCPeerConnection({ iceServers });
  for (const track of stream.getTracks()) pc.addTrack(track, stream);
  const connection = pc;
  connection.addEventListener('connectionstatechange', () => {
    if (pc !== connection) return;
    if (connection.connectionState === 'connected') setStatus('live', 'live');
    // The media path broke while the socket lives: offer again (the server keeps the session for us).
    if (connection.connectionState === 'failed' && ws?.readyState === WebSocket.OPEN) offerAgain();
  });
  await pc.setLocalDescription(await pc.createOffer());
  await iceGatheringComplete(pc);
  ws?.send(JSON.stringify({ type: 'offer', sdp: pc.localDescription.sdp }));
}

function stopMedia() {
  stream?.getTracks().forEach((track) => track.stop());
  stream = null;
  pc?.close();
  pc = null;
  ui.preview.srcObject = null;
  ui.previewNote.hidden = false;
  ui.stop.disabled = true;
  ui.start.disabled = role === 'viewer';
}

function stop() {
  stopping = true;
  ui.stop.disabled = true;
  if (ws && ws.readyState === WebSocket.OPEN) {
    ws.send(JSON.stringify({ type: 'end' })); // the server flushes speech, then sends session.ended
    setStatus('connecting', 'finishing…');
  }
  stopMedia();
}

function fail(text) {
  showMessage(text);
  setStatus('error', 'error');
}

// --- start-up ------------------------------------------------------------------------------------------

ui.copy.addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(ui.viewerUrl.value);
    showMessage('viewer link copied', 'notice', false);
  } catch {
    ui.viewerUrl.select();
  }
});

if (role === 'viewer') {
  ui.controls.hidden = true;
  ui.previewNote.textContent = 'Watching a session';
  const session = params.get('session');
  if (!session) {
    fail('a viewer link needs ?session=<id>');
  } else {
    lastHello = { type: 'hello', role: 'viewer', session, token };
    openSocket(lastHello);
  }
} else {
  ui.start.addEventListener('click', start);
  ui.stop.addEventListener('click', stop);
}
