// What the camera saw and who is in the room: the keyframe timeline (vision.observation) and the room's
// participant chips (participant.joined / .left).

import { el } from './dom.js';
import { clock } from './exports.js';

const MAX_KEYFRAMES = 60;

export class KeyframeTimeline {
  // timeline: the strip of keyframes; stand-in: {image, note} that a viewer (who gets no video) sees instead.
  constructor(timeline, standIn) {
    this.timeline = timeline;
    this.standIn = standIn;
  }

  add(event) {
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
    this.timeline.append(item);
    while (this.timeline.children.length > MAX_KEYFRAMES) this.timeline.firstElementChild.remove();
    this.timeline.scrollLeft = this.timeline.scrollWidth;
    if (this.standIn) { // the latest keyframe stands in for the video
      this.standIn.image.src = image.src;
      this.standIn.image.hidden = false;
      this.standIn.note.hidden = true;
    }
  }

  reset() {
    this.timeline.replaceChildren();
  }
}

// A room's participant list: a chip per participant in their colour; leaving removes it.
export class RoomChips {
  constructor(room, participants, onLeft) {
    this.room = room;
    this.participants = participants;
    this.onLeft = onLeft;
  }

  update(event, present) {
    this.room.hidden = false;
    const chip = [...this.participants.children].find((item) => item.dataset.name === event.name);
    if (!present) {
      chip?.remove();
      this.onLeft(event.name);
      return;
    }
    if (chip) return;
    const item = el('li', event.name);
    item.dataset.name = event.name;
    item.dataset.voice = String(event.slot || 1);
    this.participants.append(item);
  }

  reset() {
    this.participants.replaceChildren();
    this.room.hidden = true;
  }
}
