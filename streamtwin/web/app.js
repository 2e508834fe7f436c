// The streamtwin page: publish camera and microphone over WebRTC, or watch a running session,
// and render the session's events (docs/protocol.md): transcript, assistant, twin, keyframes.
// Everything shown comes from the /ws protocol; all text goes through textContent, never HTML.

import { AssistantPanel } from './assistant.js';
import { el } from './dom.js';
import { Gauges } from './gauges.js';
import { MeetingsBox } from './meetings.js';
import { offer, openCameraAndMicrophone, sendingPeer } from './media.js';
import { TranscriptView, wireDownloads } from './transcript.js';
import { KeyframeTimeline, RoomChips } from './scene.js';
import { TwinPanel } from './twin.js';

const params = new URLSearchParams(location.search);
const role = params.get('role') === 'viewer' ? 'viewer' : 'publisher';
// A room's join link (?session=ID&role=join&token=JOIN_TOKEN): publish into that session under a name.
const joining = params.get('role') === 'join' ? { session: params.get('session') || '', token: params.get('token') || '' } : null;
const token = joining ? '' : params.get('token') || ''; // the join token goes in the hello, not the URL
document.body.dataset.role = role; // a viewer's narrow layout puts the transcript first

const $ = (id) => document.getElementById(id);
const ui = {
  status: $('status'), share: $('share'), viewerUrl: $('viewer-url'), copy: $('copy'),
  shareJoin: $('share-join'), joinUrl: $('join-url'), copyJoin: $('copy-join'), name: $('name'),
  messages: $('messages'), preview: $('preview'), previewNote: $('preview-note'),
  controls: $('controls'), start: $('start'), stop: $('stop'),
};


// --- small helpers -------------------------------------------------------------------------

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

// --- panels ----------------------------------------------------------------------------------------

const gauges = new Gauges();
const transcript = new TranscriptView({
  scroller: $('transcript'), follow: $('transcript-follow'), announcer: $('transcript-announcer'),
  // A viewer names a voice: the server checks it and every viewer gets speaker.named (or this one an error).
  onRename: (speaker, name) => ws?.send(JSON.stringify({ type: 'rename', speaker, name })),
});
let received = []; // every event of the session this page has seen: what the downloads are made of
const twin = new TwinPanel((text) => showMessage(text, 'notice'));

const assistant = new AssistantPanel({
  scroller: $('assistant'), form: $('ask'), input: $('ask-text'),
  send: (message) => {
    if (ws?.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(message));
    return true;
  },
});

const keyframes = new KeyframeTimeline(
  $('timeline'), role === 'viewer' ? { image: $('latest-frame'), note: $('preview-note') } : null,
);
const roomChips = new RoomChips($('room'), $('participants'), (name) => showMessage(`${name} left`, 'notice', false));

// --- events and protocol messages ------------------------------------------------------------------

function onEvent(event) {
  received.push(event);
  if (Number.isInteger(event.seq)) lastSeq = Math.max(lastSeq ?? 0, event.seq); // a viewer resumes after it
  gauges.observe(event);
  switch (event.type) {
    case 'session.started':
      setStatus('live', role === 'viewer' ? 'watching' : 'live');
      break;
    case 'transcript.final':
      transcript.final(event);
      gauges.final(event);
      break;
    case 'transcript.partial':
      transcript.partial(event);
      break;
    case 'transcript.revised':
      transcript.revised(event);
      break;
    case 'assistant.started':
      assistant.started(event);
      break;
    case 'assistant.switched':
      assistant.switched(event);
      break;
    case 'assistant.delta':
      assistant.delta(event);
      break;
    case 'assistant.done':
      assistant.done(event);
      gauges.done(event);
      break;
    case 'twin.state':
      twin.onState(event);
      break;
    case 'twin.patch':
      twin.onPatch(event);
      break;
    case 'vision.observation':
      keyframes.add(event);
      break;
    case 'speaker.turns':
      transcript.turns(event);
      break;
    case 'speaker.named':
      transcript.named(event);
      break;
    case 'participant.joined':
      transcript.participant(event);
      roomChips.update(event, true);
      break;
    case 'participant.left':
      roomChips.update(event, false);
      break;
    case 'error':
      showMessage(`${event.fatal ? 'Error' : 'Warning'}: ${event.message}`, event.fatal ? 'error' : 'notice');
      break;
    case 'notice': // publisher_away, publisher_back
      showMessage(event.message, 'notice', false);
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
let lastSeq = null; // where a viewer is: its welcome's seq, then the newest event applied; it resumes after it
let iceServers = [];

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 3000];
const FINAL_CLOSE_CODES = [1000, 1001, 1008, 1011]; // ended, server leaving, refused, server error
// A viewer comes back when its node leaves (1001): another node serves it from the session's log.
const VIEWER_FINAL_CLOSE_CODES = [1000, 1008, 1011];

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
      assistant.onError(message.code);
      if (message.code === 'resume_gap') resetView(); // the log lost what was missed: a snapshot follows
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
  const resumed = welcome.options?.resume_from !== undefined; // exactly what was missed follows
  if (welcomedBefore && !resumed) resetView(); // the snapshot of what was missed follows
  welcomedBefore = true;
  assistant.enable(true);
  if (role === 'viewer') {
    // The snapshot that follows is as of this seq: a viewer cut off before any later event resumes from it.
    if (Number.isInteger(welcome.resume_from)) lastSeq = Math.max(lastSeq ?? 0, welcome.resume_from);
    setStatus('live', `watching ${welcome.session}`);
    return;
  }
  iceServers = welcome.ice_servers || [];
  // The viewer link carries this session's viewer token, never the access token.
  ui.viewerUrl.value = new URL(welcome.viewer_url, location.href).href;
  ui.share.hidden = false;
  if (welcome.join_url) { // a room: others join with this link (this session's join token only)
    ui.joinUrl.value = new URL(welcome.join_url, location.href).href;
    ui.shareJoin.hidden = false;
  }
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
  const finalCodes = role === 'viewer' ? VIEWER_FINAL_CLOSE_CODES : FINAL_CLOSE_CODES;
  if (sessionEnded || stopping || refused || finalCodes.includes(close.code)) {
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
  const hello = role === 'viewer' && lastSeq !== null ? { ...lastHello, resume_from: lastSeq } : lastHello;
  setTimeout(() => openSocket(hello), delay);
}

// --- publishing ------------------------------------------------------------------------------------

function resetView() {
  transcript.reset();
  received = [];
  assistant.reset();
  keyframes.reset();
  roomChips.reset();
  twin.reset();
  gauges.reset();
  ui.messages.replaceChildren();
}

async function start() {
  const name = ui.name.value.trim();
  if (joining && !name) {
    showMessage('type your name to join the room', 'notice', false);
    ui.name.focus();
    return;
  }
  ui.start.disabled = true;
  ui.name.disabled = true;
  sessionEnded = false;
  resetView();
  try {
    stream = await openCameraAndMicrophone();
  } catch (error) {
    ui.start.disabled = ui.name.disabled = false;
    fail(`camera or microphone unavailable: ${error.message}`);
    return;
  }
  ui.preview.srcObject = stream;
  ui.previewNote.hidden = true;
  ui.stop.disabled = false;
  stopping = false;
  resume = null;
  welcomedBefore = false;
  // The browser's language: a hint to the speech language detection (a confident detection still wins).
  const options = { source: 'browser', ...(name ? { name } : {}), ...(navigator.language ? { language: navigator.language } : {}) };
  lastHello = joining
    ? { type: 'hello', role: 'publisher', session: joining.session, token: joining.token, options }
    : { type: 'hello', role: 'publisher', options };
  openSocket(lastHello);
}

async function startWebRTC(iceServers) {
  const connection = pc = sendingPeer(stream, iceServers);
  connection.addEventListener('connectionstatechange', () => {
    if (pc !== connection) return;
    if (connection.connectionState === 'connected') setStatus('live', 'live');
    // The media path broke while the socket lives: offer again (the server keeps the session for us).
    if (connection.connectionState === 'failed' && ws?.readyState === WebSocket.OPEN) offerAgain();
  });
  const sdp = await offer(connection);
  if (pc !== connection) return; // stopped, or replaced while gathering: the newer offer is the one to send
  ws?.send(JSON.stringify({ type: 'offer', sdp }));
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
  ui.name.disabled = role === 'viewer';
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

wireDownloads(document.querySelectorAll('#downloads button'), { events: () => received, twin: () => twin.state });

function copyButton(button, input, what) {
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(input.value);
      showMessage(`${what} copied`, 'notice', false);
    } catch {
      input.select();
    }
  });
}
copyButton(ui.copy, ui.viewerUrl, 'viewer link');
copyButton(ui.copyJoin, ui.joinUrl, 'join link');

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
  if (!joining) { // the operator's page (the access token, if any): a viewer or join link asks one session only
    new MeetingsBox({
      section: $('meetings'), form: $('meetings-ask'), input: $('meetings-text'), output: $('meetings-answer'), token,
    }).offer();
  }
  ui.start.addEventListener('click', start);
  ui.stop.addEventListener('click', stop);
  ui.name.addEventListener('keydown', (event) => { if (event.key === 'Enter') start(); });
  if (joining) { // the join link: a name is all that is missing
    $('name-hint').textContent = '(how the others will see you)';
    ui.start.textContent = 'Join the room';
    ui.name.required = true;
    ui.name.focus();
  }
}
