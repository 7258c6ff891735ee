// Argus dashboard: a tile per camera (latest snapshot with its boxes), fps and latency, a latency chart.
// Data: GET /api/cameras every 2 s for the list and rates; /ws for detections, snapshot notices and tracked-object
// events. Zones, lines, trails, counters and the events list are tracking.js's, the zone editor zone-editor.js's:
// both load before this script, which calls their hooks (sceneTile, sceneCamera, sceneDetections, sceneSnapshot,
// onEvent, loadEvents, startTracking).
// Access: when the server has a token, opening the link printed at start (/?token=...) once sets an HttpOnly cookie
// that the browser sends with every request, WebSocket included; this script never sees the token.
'use strict';

const WINDOW_MS = 60_000;
const tiles = new Map();        // camera id -> {id, el, latency: [[t, ms]], count, lastLatency, ...tracking.js's}

// Earlier versions kept the token in localStorage from a #token= link: log in with it the new way, then forget it.
(() => {
  const m = /token=([^&]+)/.exec(location.hash);
  const old = m ? decodeURIComponent(m[1]) : localStorage.getItem('argus.token');
  localStorage.removeItem('argus.token');
  if (old) location.replace('/?token=' + encodeURIComponent(old));
})();

function colorOf(i) { return `hsl(${(i * 137.5) % 360} 80% 60%)`; }

// Says why nothing loads when the server refuses us (401: no or wrong token; 429: locked out for a while; 403: the
// page's origin or the server's name is not one the server accepts, e.g. behind a proxy not in http.allowedOrigins).
function checkAccess(r) {
  const message = document.getElementById('access');
  if (r.status === 401) {
    message.textContent = 'This Argus server needs its access token: open the dashboard URL printed at start, '
      + 'or run `argus token show` and open the link it prints.';
  } else if (r.status === 429) {
    message.textContent = `Too many wrong access tokens: try again in ${r.headers.get('retry-after') || 60} s.`;
  } else if (r.status === 403) {
    message.textContent = 'This Argus server refused the request.';
    r.clone().json().then((b) => {
      if (b && b.error) message.textContent = `This Argus server refused the request: ${b.error}`;
    }).catch(() => {});
  } else {
    message.hidden = true;
    return r;
  }
  message.hidden = false;
  throw new Error(`HTTP ${r.status}`);
}

function tileFor(camera) {
  let t = tiles.get(camera.id);
  if (t) return t;
  const el = document.getElementById('tile').content.firstElementChild.cloneNode(true);
  el.dataset.camera = camera.id;
  el.querySelector('.name').textContent = camera.id;
  el.querySelector('.toggle').addEventListener('click', () => toggle(camera.id));
  document.getElementById('cameras').appendChild(el);
  t = { id: camera.id, el, latency: [], count: 0, lastLatency: null, color: colorOf(tiles.size), paused: false };
  tiles.set(camera.id, t);
  sceneTile(camera, t);
  return t;
}

async function toggle(id) {
  const t = tiles.get(id);
  const action = t.paused ? 'resume' : 'pause';
  await fetch(`/api/cameras/${encodeURIComponent(id)}/${action}`, { method: 'POST' }).then(checkAccess);
  refreshCameras();
}

async function refreshCameras() {
  try {
    const cameras = await checkAccess(await fetch('/api/cameras')).json();
    const seen = new Set();
    let fps = 0;
    for (const c of cameras) {
      seen.add(c.id);
      const t = tileFor(c);
      t.paused = c.paused;
      sceneCamera(t, c);
      fps += c.fps;
      t.el.querySelector('.state').textContent = c.paused ? 'paused' : c.state;
      t.el.querySelector('.fps').textContent = `${c.fps.toFixed(1)} fps`;
      t.el.querySelector('.toggle').textContent = c.paused ? 'resume' : 'pause';
      showProblem(t, c);
    }
    for (const [id, t] of tiles) {
      if (seen.has(id)) continue;
      if (editedRules(t)) closeEditor();
      t.el.remove();
      tiles.delete(id);
    }
    document.getElementById('summary').textContent = `${cameras.length} camera(s), ${fps.toFixed(1)} fps decoded`;
  } catch (e) {
    document.getElementById('summary').textContent = document.getElementById('access').hidden ? 'API unreachable' : '';
  }
}

// A camera that is not streaming says why on its tile (its lastError, in words) and when it tries again, in place of a
// picture that is not coming (or an old one that would look live).
function showProblem(t, c) {
  const box = t.el.querySelector('.problem');
  const failing = !c.paused && c.state !== 'streaming' && !!c.lastError;
  box.hidden = !failing;
  t.el.classList.toggle('failing', failing);
  if (!failing) return;
  box.querySelector('.problem-title').textContent = c.state === 'stopped' ? 'Camera stopped' : 'Camera not streaming';
  box.querySelector('.reason').textContent = c.lastError;
  let retry = '';
  if (c.state === 'backoff' && c.nextRetryInMs != null) {
    retry = `next try in ${Math.ceil(c.nextRetryInMs / 1000)} s`
      + (c.nextRetryAt ? ` (${new Date(c.nextRetryAt).toLocaleTimeString()})` : '');
  } else if (c.state === 'connecting') {
    retry = 'connecting…';
  }
  box.querySelector('.retry').textContent = retry;
}

function onDetections(m) {
  const t = tiles.get(m.cameraId);
  if (!t) return;
  const now = Date.now();
  t.latency.push([now, m.latency.totalMs]);
  while (t.latency.length && t.latency[0][0] < now - WINDOW_MS) t.latency.shift();
  t.count++;
  t.lastLatency = m.latency.totalMs;
  t.el.querySelector('.latency').textContent = `${m.latency.totalMs.toFixed(0)} ms`;
  t.el.querySelector('.count').textContent = `${m.detections.length} objects`;
  t.el.querySelector('.model').textContent = `${m.model.id} @ ${m.model.version}`;
  t.el.dataset.version = m.model.version;
  sceneDetections(m, t);
}

function onSnapshot(m) {
  const t = tiles.get(m.cameraId);
  if (!t) return;
  const img = new Image();
  img.onload = () => {
    const frame = t.el.querySelector('.frame');
    frame.querySelector('img').src = img.src;
    frame.style.aspectRatio = `${m.width} / ${m.height}`;
    drawBoxes(frame.querySelector('svg'), m);
    sceneSnapshot(t, m);
    frame.classList.add('live');
    frame.dataset.frame = m.frame;
  };
  img.src = m.url;
}

// The snapshot's boxes in its own layer (zones, lines and trails have theirs), in source pixels: the viewBox scales
// them with the picture. Each box is followed by its label (scripts and tests read rect.box + text).
function drawBoxes(svg, m) {
  const ns = 'http://www.w3.org/2000/svg';
  svg.setAttribute('viewBox', `0 0 ${m.width} ${m.height}`);
  const layer = svg.querySelector('.detections');
  layer.replaceChildren();
  for (const d of m.detections) {
    const color = colorOf(d.classId);
    const r = document.createElementNS(ns, 'rect');
    r.setAttribute('class', 'box');
    r.setAttribute('x', d.box.x); r.setAttribute('y', d.box.y);
    r.setAttribute('width', Math.max(1, d.box.w)); r.setAttribute('height', Math.max(1, d.box.h));
    r.setAttribute('stroke', color);
    if (d.track) r.dataset.track = d.track.id;
    const label = document.createElementNS(ns, 'text');
    label.setAttribute('x', d.box.x + 2); label.setAttribute('y', Math.max(12, d.box.y - 3));
    label.setAttribute('font-size', Math.max(10, m.height / 30));
    label.textContent = boxLabel(d);
    layer.append(r, label);
  }
}

// "circle #17 0.91": the class name first, since scripts and tests take the label's first word for the class; then
// the track id when the object is tracked, and the confidence.
function boxLabel(d) {
  const track = d.track ? ` #${d.track.id}` : '';
  return `${d.className}${track} ${d.confidence.toFixed(2)}`;
}

function drawChart() {
  const canvas = document.getElementById('latency');
  const ctx = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height, pad = 30;
  ctx.clearRect(0, 0, w, h);
  const now = Date.now();
  let max = 50;
  for (const t of tiles.values()) for (const [, ms] of t.latency) max = Math.max(max, ms);
  max = Math.ceil(max / 50) * 50;
  ctx.strokeStyle = '#2d333b'; ctx.fillStyle = '#8b95a3'; ctx.font = '11px sans-serif';
  for (let i = 0; i <= 4; i++) {
    const y = h - pad - (h - 2 * pad) * i / 4;
    ctx.beginPath(); ctx.moveTo(pad, y); ctx.lineTo(w - 5, y); ctx.stroke();
    ctx.fillText(String(Math.round(max * i / 4)), 2, y + 4);
  }
  const legend = [];
  for (const [id, t] of tiles) {
    ctx.strokeStyle = t.color; ctx.beginPath();
    t.latency.forEach(([time, ms], i) => {
      const x = pad + (w - pad - 5) * (1 - (now - time) / WINDOW_MS);
      const y = h - pad - (h - 2 * pad) * Math.min(ms, max) / max;
      if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    });
    ctx.stroke();
    legend.push(`<span><i style="background:${t.color}"></i>${id}${t.lastLatency != null ? ` ${t.lastLatency.toFixed(0)} ms` : ''}</span>`);
  }
  document.getElementById('legend').innerHTML = legend.join('');
}

function connect(delay = 500) {
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${proto}://${location.host}/ws`); // the cookie goes with the upgrade request
  const status = document.getElementById('connection');
  ws.onopen = () => {
    status.textContent = 'live'; status.className = 'status on';
    ws.send(JSON.stringify({ type: 'subscribe', snapshots: true, includeEmpty: true, events: true }));
    delay = 500;
    loadEvents();   // what happened while we were not connected
  };
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === 'detections') onDetections(m);
    else if (m.type === 'snapshot') onSnapshot(m);
    else if (m.type === 'event') onEvent(m);
  };
  ws.onclose = () => {
    status.textContent = 'disconnected, retrying…'; status.className = 'status off';
    setTimeout(() => connect(Math.min(delay * 2, 10_000)), delay);
  };
}

refreshCameras();
setInterval(refreshCameras, 2000);
setInterval(drawChart, 1000);
startTracking();
connect();
