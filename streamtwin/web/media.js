// The publisher's media: the camera and microphone, and the WebRTC peer connection that sends them.
// aiortc (the server) does not trickle ICE, so an offer is sent once it carries every candidate.

const ICE_GATHERING_TIMEOUT_MS = 5000; // an unreachable STUN server must not hang the offer

// Browser voice processing damages speech for recognition (see ../docs/protocol.md).
export function openCameraAndMicrophone() {
  return navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false },
    video: { width: { ideal: 640 }, height: { ideal: 480 } },
  });
}

// A peer connection sending every track of `stream`; `offer(connection)` gives its SDP offer when complete.
export function sendingPeer(stream, iceServers) {
  const connection = new RTCPeerConnection({ iceServers });
  for (const track of stream.getTracks()) connection.addTrack(track, stream);
  return connection;
}

export async function offer(connection) {
  await connection.setLocalDescription(await connection.createOffer());
  await iceGatheringComplete(connection);
  return connection.localDescription.sdp;
}

function iceGatheringComplete(connection) {
  if (connection.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (connection.iceGatheringState !== 'complete') return;
      connection.removeEventListener('icegatheringstatechange', done);
      resolve();
    };
    connection.addEventListener('icegatheringstatechange', done);
    setTimeout(resolve, ICE_GATHERING_TIMEOUT_MS);
  });
}
