// Argus dashboard, tracking (docs/tracking.md): each camera's zones and lines drawn over its tile with their counts,
// a short trail behind each tracked object, a counters panel per camera, and the list of tracked-object events with
// their best snapshots.
// Data: GET /api/cameras/<id>/zones and /lines (every 10 s, and after a save), GET /api/counts?camera=<id> (every 10 s,
// and soon after an event that changed a count), GET /api/events at each (re)connection, then /ws events; trails come
// from the detection messages (every frame), drawn up to the frame of the snapshot shown so they match the picture.
// Loaded before dashboard.js, which calls the hooks sceneTile, sceneCamera, sceneDetections, sceneSnapshot, onEvent,
// loadEvents and startTracking from its own callbacks and its last lines (so every script has loaded by then).
// Uses colorOf(), checkAccess() and tiles from dashboard.js; the access cookie goes with every request.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';
const TRAIL_POINTS = 20;          // positions kept per track: under a second of video at 25 fps
const TRAIL_STALE_FRAMES = 50;    // a trail not extended for this many frames is no longer drawn
const RULES_REFRESH_MS = 10_000;  // another browser (or a script) may change the rules
const COUNTS_REFRESH_MS = 10_000;
// An event is published before its counts are stored: ask for them a little later, once for a burst of events.
const COUNTS_DELAY_MS = 700;
const EVENTS_SHOWN = 100;
const THUMB_RETRY_MS = 4000;      // an event's best snapshot may not exist yet (404): look again this often
const THUMB_TRIES = 8;

const events = new Map();         // event id -> {event, row, changes: [text], thumbTries, thumbLoaded}
const countsDue = new Map();      // camera id -> timer of a pending counts refresh

// ---- requests ----------------------------------------------------------------------------------------------------

async function getJson(path) {
  return (await fetch(path).then(checkAccess)).json();
}

const cameraPath = (id) => `/api/cameras/${encodeURIComponent(id)}`;

// ---- per camera: rules, counts, trails -------------------------------------------------------------------------------

/** A new tile: its scene state, then its rules and counts from the server. */
function sceneTile(camera, t) {
  t.scene = { zones: [], lines: [], counts: { zones: [], lines: [] } };
  t.anchor = camera.anchor || 'bottom_center';
  t.size = null;                  // source pixels of the camera's frames, known with the first snapshot
  t.trails = new Map();           // track id -> [{x, y, frame}], oldest first
  t.lastFrame = -1;
  attachEditor(t);
  loadRules(t);
  loadCounts(t);
}

/** The camera's description from the periodic /api/cameras refresh. */
function sceneCamera(t, camera) {
  if (camera.anchor) t.anchor = camera.anchor;
}

async function loadRules(t) {
  try {
    const [zones, lines] = await Promise.all([getJson(`${cameraPath(t.id)}/zones`), getJson(`${cameraPath(t.id)}/lines`)]);
    t.scene.zones = zones;
    t.scene.lines = lines;
    drawScene(t);
    renderCounters(t);
  } catch (e) {
    // unreachable or refused: dashboard.js says so in the header; keep what we had
  }
}

async function loadCounts(t) {
  try {
    const counts = await getJson(`/api/counts?camera=${encodeURIComponent(t.id)}`);
    t.scene.counts = { zones: counts.zones || [], lines: counts.lines || [] };
    drawScene(t);
    renderCounters(t);
  } catch (e) {
    // as above
  }
}

/** Counts of a camera changed: fetch them once the burst of events is over (at most one request in flight). */
function countsSoon(cameraId) {
  const t = tiles.get(cameraId);
  if (!t || countsDue.has(cameraId)) return;
  countsDue.set(cameraId, setTimeout(() => {
    countsDue.delete(cameraId);
    loadCounts(t);
  }, COUNTS_DELAY_MS));
}

/** Inside now and entered so far of a zone, summed over classes, with the per-class parts. */
function zoneCount(t, zoneId) {
  const rows = t.scene.counts.zones.filter((c) => c.zone === zoneId);
  return {
    inside: rows.reduce((s, c) => s + c.count, 0),
    entered: rows.reduce((s, c) => s + c.entered, 0),
    byClass: rows.map((c) => `${c.className} ${c.count}/${c.entered}`),
  };
}

/** Crossings of a line in and out so far, summed over classes, with the per-class parts. */
function lineCount(t, lineId) {
  const rows = t.scene.counts.lines.filter((c) => c.line === lineId);
  return {
    in: rows.reduce((s, c) => s + c.in, 0),
    out: rows.reduce((s, c) => s + c.out, 0),
    byClass: rows.map((c) => `${c.className} ${c.in}/${c.out}`),
  };
}

/** Where the camera's anchor (the point that zones and lines test) lies on a box. */
function anchorOf(box, anchor) {
  const x = box.x + box.w / 2;
  if (anchor === 'center') return { x, y: box.y + box.h / 2 };
  if (anchor === 'top_center') return { x, y: box.y };
  return { x, y: box.y + box.h };
}

/** A detection message: each tracked object's anchor extends its trail; ended tracks lose theirs. */
function sceneDetections(m, t) {
  if (m.frame < t.lastFrame) t.trails.clear();    // the camera restarted: frame numbers start again
  t.lastFrame = m.frame;
  for (const d of m.detections) {
    if (!d.track) continue;
    let trail = t.trails.get(d.track.id);
    if (!trail) t.trails.set(d.track.id, trail = []);
    trail.push({ ...anchorOf(d.box, t.anchor), frame: m.frame });
    if (trail.length > TRAIL_POINTS) trail.shift();
  }
  for (const id of m.tracksEnded || []) t.trails.delete(id);
  for (const [id, trail] of t.trails) {
    if (trail[trail.length - 1].frame < m.frame - 4 * TRAIL_STALE_FRAMES) t.trails.delete(id);
  }
}

/** A snapshot is on screen: draw the scene the first time its size is known, and the trails up to its frame. */
function sceneSnapshot(t, m) {
  const first = !t.size || t.size.w !== m.width || t.size.h !== m.height;
  t.size = { w: m.width, h: m.height };
  if (first) drawScene(t);
  drawTrails(t, m.frame);
}

// ---- drawing over the tile ---------------------------------------------------------------------------------------

function svgElement(name, attributes = {}, text) {
  const el = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) el.setAttribute(k, v);
  if (text != null) el.textContent = text;
  return el;
}

const fontSize = (t) => Math.max(10, t.size.h / 30);

/** A rule's point in source pixels (normalized rules are fractions of the frame). */
function toPixels(t, rule, [x, y]) {
  return rule.normalized ? [x * t.size.w, y * t.size.h] : [x, y];
}

const pointsAttribute = (points) => points.map(([x, y]) => `${x},${y}`).join(' ');

/** Zones and lines with their counts (while editing this tile: the copies being edited, with handles). */
function drawScene(t) {
  if (!t.size) return;
  const layer = t.el.querySelector('svg .scene');
  layer.replaceChildren();
  const rules = editedRules(t) || t.scene;
  rules.zones.forEach((z, i) => layer.append(zoneShape(t, z, i)));
  rules.lines.forEach((l, i) => layer.append(lineShape(t, l, i)));
  drawEditor(t);
}

function zoneShape(t, zone, i) {
  const color = colorOf(i + 3);
  const points = zone.polygon.map((p) => toPixels(t, zone, p));
  const g = svgElement('g', { class: 'zone', 'data-zone': zone.id });
  g.append(svgElement('polygon', { points: pointsAttribute(points), fill: color, stroke: color }));
  if (points.length) {
    // the label inside the zone below its top corner, where it does not cover the zone's own edge
    const [x, y] = points.reduce((top, p) => (p[1] < top[1] || (p[1] === top[1] && p[0] < top[0]) ? p : top));
    const count = zoneCount(t, zone.id);
    g.prepend(svgElement('title', {}, `zone ${zone.id}: ${count.inside} inside now, ${count.entered} entered`));
    g.append(svgElement('text', { x: x + 4, y: y + fontSize(t) + 2, 'font-size': fontSize(t) }, `${zone.id} · ${count.inside}`));
  }
  return g;
}

/**
 * A line, with an arrow at its middle pointing to its "in" side: walking from `from` to `to` on the image (y down), an
 * object crossing from the left hand to the right hand goes in.
 */
function lineShape(t, line, i) {
  const color = colorOf(i + 7);
  const [x1, y1] = toPixels(t, line, line.from);
  const [x2, y2] = toPixels(t, line, line.to);
  const length = Math.hypot(x2 - x1, y2 - y1) || 1;
  const [nx, ny] = [-(y2 - y1) / length, (x2 - x1) / length];   // unit normal to the right hand: the "in" side
  const [mx, my] = [(x1 + x2) / 2, (y1 + y2) / 2];
  const arrow = Math.min(t.size.w, t.size.h) / 12;
  const [tipX, tipY] = [mx + nx * arrow, my + ny * arrow];
  const [ux, uy] = [(x2 - x1) / length, (y2 - y1) / length];
  const head = arrow / 3;
  const g = svgElement('g', { class: 'line', 'data-line': line.id });
  g.append(svgElement('line', { class: 'rule', x1, y1, x2, y2, stroke: color }));
  const arrowPath = `M${mx},${my} L${tipX},${tipY} M${tipX - nx * head + ux * head},${tipY - ny * head + uy * head} `
    + `L${tipX},${tipY} L${tipX - nx * head - ux * head},${tipY - ny * head - uy * head}`;
  const arrowShape = svgElement('path', { class: 'arrow', d: arrowPath, stroke: color });
  arrowShape.append(svgElement('title', {}, 'crossing this way counts as in'));
  g.append(arrowShape);
  const count = lineCount(t, line.id);
  // the label on the side the arrow does not point to, so the two do not overlap
  const offset = fontSize(t) * 0.8;
  const label = svgElement('text', {
    x: mx - nx * offset, y: my - ny * offset + (ny > 0 ? 0 : fontSize(t) * 0.8), 'text-anchor': 'middle',
    'font-size': fontSize(t),
  }, `${line.id} in ${count.in} · out ${count.out}`);
  g.append(label);
  return g;
}

/** The trail of every track seen lately, up to the snapshot's frame, coloured by track. */
function drawTrails(t, frame) {
  const layer = t.el.querySelector('svg .trails');
  layer.replaceChildren();
  for (const [id, trail] of t.trails) {
    const shown = trail.filter((p) => p.frame <= frame);
    if (shown.length < 2 || shown[shown.length - 1].frame < frame - TRAIL_STALE_FRAMES) continue;
    layer.append(svgElement('polyline', {
      class: 'trail', 'data-track': id, stroke: colorOf(id), points: shown.map((p) => `${p.x},${p.y}`).join(' '),
    }));
  }
}

// ---- counters panel ------------------------------------------------------------------------------------------------

/** Each zone (inside now, entered so far) and line (in, out) of the camera, with the parts per class. */
function renderCounters(t) {
  const list = t.el.querySelector('.counters');
  list.replaceChildren();
  for (const z of t.scene.zones) {
    const c = zoneCount(t, z.id);
    list.append(counterItem('zone', z.id, [['inside', c.inside, 'inside'], ['entered', c.entered, 'entered']], c.byClass));
  }
  for (const l of t.scene.lines) {
    const c = lineCount(t, l.id);
    list.append(counterItem('line', l.id, [['in', c.in, 'in'], ['out', c.out, 'out']], c.byClass));
  }
  list.hidden = list.childElementCount === 0;
}

/** parts: [[class name, number, words after it]]; byClass: "circle 1/4" for each class counted. */
function counterItem(kind, id, parts, byClass) {
  const li = document.createElement('li');
  li.dataset[kind] = id;
  const name = document.createElement('strong');
  name.textContent = `${kind} ${id}`;
  const numbers = document.createElement('span');
  numbers.className = 'numbers';
  parts.forEach(([cls, n, words], i) => {
    const number = document.createElement('b');
    number.className = cls;
    number.textContent = n;
    numbers.append(i ? ' · ' : '', number, ` ${words}`);
  });
  const classes = document.createElement('small');
  classes.textContent = byClass.join(' · ');
  classes.title = kind === 'zone' ? 'per class: inside now / entered' : 'per class: in / out';
  li.append(name, numbers, classes);
  return li;
}

// ---- events list ---------------------------------------------------------------------------------------------------

/** The recent events (newest first) at each connection: those of the time we were away fill in. */
async function loadEvents() {
  try {
    const page = await getJson(`/api/events?limit=${EVENTS_SHOWN}`);
    for (const e of page.events.slice().reverse()) showEvent(e);
  } catch (e) {
    // the live ones still come
  }
}

/** A /ws event: its row updated (or added), and the camera's counts fetched again when it changed one. */
function onEvent(e) {
  showEvent(e);
  if ((e.change || []).some((c) => c.type === 'entered' || c.type === 'left' || c.type === 'crossed')) countsSoon(e.cameraId);
}

function showEvent(e) {
  let entry = events.get(e.id);
  if (!entry) {
    entry = { event: e, changes: [], thumbTries: 0, thumbLoaded: false };
    entry.row = eventRow(entry);
    events.set(e.id, entry);
    insertNewestFirst(entry.row, e.start);
    forgetOldEvents();
  } else if ((entry.event.kind === 'end' && e.kind !== 'end') || e.time < entry.event.time) {
    // a late update after the end (around a failover), or history fetched while newer live messages came: keep those
    return;
  }
  entry.event = e;
  for (const c of e.change || []) {
    const text = describeChange(c);
    if (!entry.changes.includes(text)) entry.changes.push(text);
  }
  fillEventRow(entry);
  // the best snapshot improves while the object is seen; the one kept at the end is final
  if (!entry.thumbLoaded || e.kind === 'end') loadThumbnail(entry);
  document.getElementById('events-summary').textContent = `${events.size} shown, newest first`;
}

function describeChange(c) {
  switch (c.type) {
    case 'entered': return `entered ${c.zone}`;
    case 'left': return `left ${c.zone}`;
    case 'crossed': return `crossed ${c.line} ${c.direction}`;
    case 'loitering': return `loitering in ${c.zone} ${Math.round(c.seconds)} s`;
    default: return c.type;
  }
}

function eventRow(entry) {
  const e = entry.event;
  const row = document.createElement('tr');
  row.dataset.event = e.id;
  row.dataset.camera = e.cameraId;
  row.dataset.start = e.start;
  row.innerHTML = '<td class="thumb-cell"><a target="_blank" rel="noopener" title="the best snapshot, full size">'
    + '<img class="snapshot" alt="best snapshot" hidden>'
    + '<span class="no-snapshot">no snapshot yet</span></a></td><td class="time"></td><td class="camera"></td>'
    + '<td class="object"></td><td class="zones"></td><td class="changes"></td><td class="state"></td>';
  const img = row.querySelector('img');
  const showPicture = (loaded) => {
    entry.thumbLoaded = loaded;
    img.hidden = !loaded;
    row.querySelector('.no-snapshot').hidden = loaded;
  };
  img.addEventListener('load', () => showPicture(true));
  img.addEventListener('error', () => showPicture(false));
  return row;
}

function fillEventRow({ event: e, row, changes }) {
  const cell = (name, text) => { row.querySelector(`.${name}`).textContent = text; };
  cell('time', new Date(e.start).toLocaleTimeString());
  cell('camera', e.cameraId);
  cell('object', `#${e.trackId} ${e.className} ${Number(e.confidence).toFixed(2)}`);
  cell('zones', (e.enteredZones || []).join(', ') || '–');
  // from /api/events only the latest change is known; the lines crossed so far are kept apart
  const crossed = (e.crossedLines || []).map((l) => `crossed ${l}`)
    .filter((text) => !changes.some((c) => c.startsWith(`${text} `)));
  cell('changes', [...changes, ...crossed].join(', ') || '–');
  cell('state', e.kind === 'end' ? `ended after ${((e.end - e.start) / 1000).toFixed(1)} s` : 'in view');
  row.classList.toggle('ended', e.kind === 'end');
  row.querySelector('a').href = snapshotUrl(e);
}

const snapshotUrl = (e) => e.snapshot || `/api/events/${encodeURIComponent(e.id)}/snapshot.jpg`;

/** (Re)loads an event's best snapshot; until one is taken the server answers 404 and the row says so. */
function loadThumbnail(entry) {
  entry.thumbTries++;
  // a new address each time: the browser would otherwise keep showing (or keep missing) the first answer
  entry.row.querySelector('img').src = `${snapshotUrl(entry.event)}?v=${entry.thumbTries}`;
}

/** Events still without a picture: look again, a few times. */
function retryThumbnails() {
  for (const entry of events.values()) {
    if (!entry.thumbLoaded && entry.thumbTries < THUMB_TRIES) loadThumbnail(entry);
  }
}

function insertNewestFirst(row, start) {
  const body = document.querySelector('#event-list tbody');
  const later = [...body.rows].find((r) => Number(r.dataset.start) < start);
  body.insertBefore(row, later || null);
}

function forgetOldEvents() {
  const body = document.querySelector('#event-list tbody');
  while (body.rows.length > EVENTS_SHOWN) {
    const last = body.rows[body.rows.length - 1];
    events.delete(last.dataset.event);
    last.remove();
  }
}

// ---- start -----------------------------------------------------------------------------------------------------------

/** Periodic refreshes (the live updates cover the rest); called once by dashboard.js. */
function startTracking() {
  setInterval(() => {
    for (const t of tiles.values()) if (!editedRules(t)) loadRules(t);
  }, RULES_REFRESH_MS);
  setInterval(() => { for (const t of tiles.values()) loadCounts(t); }, COUNTS_REFRESH_MS);
  setInterval(retryThumbnails, THUMB_RETRY_MS);
}
