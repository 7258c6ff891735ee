// Review: what a recorded camera saw. A timeline of the last hour per camera (recorded spans from
// GET /api/recordings/:camera, events from GET /api/events with their class and zone/line changes); a click plays the
// recording from there in a <video> (each segment is an MP4 that plays alone, served with byte ranges), the next
// segment following when one ends; the boxes the detector saw in each frame (GET /api/recordings/:camera/detections)
// drawn over the playback; the previous and next event a button away; an event's clip to download.
'use strict';

(() => {
  const SPAN_MS = 3_600_000;
  const section = document.getElementById('review');
  const select = document.getElementById('review-camera');
  const canvas = document.getElementById('timeline');
  const video = document.getElementById('review-video');
  const svg = document.getElementById('review-boxes');
  const where = document.getElementById('review-at');
  const clipLink = document.getElementById('review-clip');
  const state = { camera: null, from: 0, to: 0, segments: [], events: [], playing: null, frames: [], framesFrom: 0, framesTo: 0 };

  async function json(path) { return (await fetch(path).then(checkAccess)).json(); }

  // the cameras that record: the review section shows only when there is one
  async function refreshCameras() {
    try {
      const status = await json('/api/recordings');
      const ids = Object.keys(status.cameras || {}).sort();
      section.hidden = ids.length === 0;
      const known = [...select.options].map((o) => o.value);
      if (ids.join() !== known.join()) {
        select.replaceChildren(...ids.map((id) => new Option(id, id)));
        if (!state.camera && ids.length) choose(ids[0]);
      }
    } catch (e) { /* the access message says why */ }
  }

  async function choose(camera) {
    state.camera = camera;
    select.value = camera;
    await refreshTimeline();
  }

  async function refreshTimeline() {
    if (!state.camera) return;
    state.to = Date.now();   // whole milliseconds, as the API takes them
    state.from = state.to - SPAN_MS;
    const c = encodeURIComponent(state.camera);
    const [list, events] = await Promise.all([
      json(`/api/recordings/${c}?from=${state.from}&to=${state.to}`),
      json(`/api/events?camera=${c}&after=${state.from}&limit=1000`)]);
    state.segments = list.segments;
    state.events = events.events.slice().sort((a, b) => a.start - b.start);
    draw();
  }

  const x = (t) => ((t - state.from) / (state.to - state.from)) * canvas.width;

  function draw() {
    const g = canvas.getContext('2d');
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = '#2d333b';
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = '#3fb950';   // recorded
    for (const s of state.segments) {
      const end = s.endMs >= 0 ? s.endMs : Date.now();
      g.fillRect(x(s.startMs), 34, Math.max(1, x(end) - x(s.startMs)), 14);
    }
    for (const e of state.events) {   // events by class; zone and line changes marked above them
      g.fillStyle = classColor(e.className);
      const end = e.end != null ? e.end : Date.now();
      g.fillRect(x(e.start), 8, Math.max(2, x(end) - x(e.start)), 20);
      if ((e.crossedLines || []).length || (e.enteredZones || []).length) {
        g.fillStyle = '#e6e9ee';
        g.fillRect(x(e.start), 2, 2, 6);
      }
    }
    if (state.playing) {
      g.fillStyle = '#f47067';
      g.fillRect(x(playheadMs()) - 1, 0, 2, canvas.height);
    }
    g.fillStyle = '#8b95a3';
    g.font = '11px sans-serif';
    for (let k = 0; k <= 6; k++) {
      const t = state.from + (k * SPAN_MS) / 6;
      g.fillText(new Date(t).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }), Math.min(x(t) + 2, canvas.width - 40), 62);
    }
  }

  function classColor(name) {
    let h = 0;
    for (const ch of name || '') h = (h * 31 + ch.charCodeAt(0)) % 360;
    return `hsl(${h} 70% 55%)`;
  }

  function segmentAt(t) {
    return state.segments.find((s) => s.startMs <= t && (s.endMs < 0 || t < s.endMs))
      || state.segments.find((s) => s.startMs > t);   // in a gap: the next recorded picture
  }

  // plays the recording from wall-clock time t
  function playAt(t) {
    const s = segmentAt(t);
    if (!s) { where.textContent = 'nothing recorded from there'; return; }
    const offset = Math.max(0, t - s.startMs) / 1000;
    if (state.playing && state.playing.name === s.name) {
      video.currentTime = offset;
    } else {
      state.playing = s;
      video.src = s.url;
      video.addEventListener('loadedmetadata', () => { video.currentTime = offset; }, { once: true });
    }
    video.play().catch(() => {});
    draw();
  }

  const playheadMs = () => (state.playing ? state.playing.startMs + video.currentTime * 1000 : 0);

  // the frame takes the picture's proportions (kept while the next segment loads: no jump between files)
  video.addEventListener('loadedmetadata', () => {
    if (video.videoWidth > 0) video.parentElement.style.aspectRatio = `${video.videoWidth} / ${video.videoHeight}`;
  });

  // the next segment when one ends
  video.addEventListener('ended', async () => {
    if (!state.playing) return;
    await refreshTimeline();
    const next = state.segments.find((s) => s.startMs >= state.playing.startMs + 1 && s.name !== state.playing.name);
    if (next) playAt(next.startMs);
  });

  // the boxes of the frame shown: fetched a minute at a time around the playhead
  async function boxesNear(t) {
    if (t < state.framesFrom || t >= state.framesTo) {
      state.framesFrom = Math.round(t) - 5_000;   // whole milliseconds: the API takes nothing else
      state.framesTo = Math.round(t) + 55_000;
      const c = encodeURIComponent(state.camera);
      const r = await json(`/api/recordings/${c}/detections?from=${state.framesFrom}&to=${state.framesTo}`);
      state.frames = r.frames || [];
      state.error = r.error || null;
    }
    // the frame nearest the picture shown, within a quarter second: a frame's time is when it was decoded, the
    // recording's when its packet arrived, a frame or two earlier; without a detection near, no boxes
    let best = null;
    for (const f of state.frames) {
      if (Math.abs(f.t - t) <= 250 && (!best || Math.abs(f.t - t) < Math.abs(best.t - t))) best = f;
    }
    return best;
  }

  async function drawBoxes() {
    if (!state.playing || video.readyState < 2) return;
    const t = playheadMs();
    where.textContent = new Date(t).toLocaleString();
    const f = await boxesNear(t);
    svg.replaceChildren();
    if (!f) return;
    svg.setAttribute('viewBox', `0 0 ${f.width} ${f.height}`);
    for (const [name, confidence, bx, by, bw, bh, track] of f.boxes) {
      const r = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
      Object.entries({ x: bx, y: by, width: bw, height: bh, class: 'box', stroke: classColor(name) })
        .forEach(([k, v]) => r.setAttribute(k, v));
      const label = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      label.setAttribute('x', bx);
      label.setAttribute('y', Math.max(12, by - 3));
      label.textContent = `${track != null ? '#' + track + ' ' : ''}${name} ${Number(confidence).toFixed(2)}`;
      svg.append(r, label);
    }
    svg.dataset.frame = f.t;
  }

  function step(direction) {
    const t = state.playing ? playheadMs() : Date.now();
    const list = direction < 0 ? state.events.filter((e) => e.start < t - 1500).reverse() : state.events.filter((e) => e.start > t + 500);
    const e = list[0];
    if (!e) return;
    showEvent(e);
  }

  function showEvent(e) {
    const from = e.clip ? e.clip.from : e.start;
    clipLink.href = e.clip ? e.clip.url : '#';
    clipLink.hidden = !e.clip;
    clipLink.textContent = `clip of ${e.className} #${e.trackId}`;
    playAt(from);
  }

  canvas.addEventListener('click', (ev) => {
    const rect = canvas.getBoundingClientRect();
    const t = state.from + ((ev.clientX - rect.left) / rect.width) * (state.to - state.from);
    const hit = state.events.find((e) => Math.abs(x(e.start) - (ev.clientX - rect.left) * (canvas.width / rect.width)) < 3);
    if (hit) showEvent(hit);
    else playAt(t);
  });
  select.addEventListener('change', () => choose(select.value));
  document.getElementById('review-prev').addEventListener('click', () => step(-1));
  document.getElementById('review-next').addEventListener('click', () => step(1));
  // each frame shown where the browser says so, and at least four times a second (timeupdate) where it does not
  const redraw = () => { drawBoxes().catch((e) => { state.error = String(e); }); draw(); };
  if ('requestVideoFrameCallback' in HTMLVideoElement.prototype) {
    const onFrame = () => { redraw(); video.requestVideoFrameCallback(onFrame); };
    video.requestVideoFrameCallback(onFrame);
  }
  video.addEventListener('timeupdate', redraw);

  // for people and tests: where playback is (wall-clock ms, 0 when nothing plays), and play an event by id
  window.reviewPlayhead = () => (state.playing && video.readyState >= 2 ? playheadMs() : 0);
  window.reviewState = () => ({ playhead: playheadMs(), frames: state.frames.length, framesFrom: state.framesFrom,
    framesTo: state.framesTo, firstFrame: state.frames.length ? state.frames[0].t : null, error: state.error || null });
  window.reviewEvent = async (id) => {
    await refreshTimeline();
    const e = state.events.find((v) => v.id === id) || await json(`/api/events/${encodeURIComponent(id)}`);
    if (e) showEvent(e);
    return !!e;
  };

  refreshCameras();
  setInterval(refreshCameras, 10_000);
  setInterval(() => { if (!state.playing || video.paused) refreshTimeline().catch(() => {}); }, 10_000);
})();
