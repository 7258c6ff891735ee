// Argus dashboard, the zone and line editor of a camera tile. "edit zones" opens it: the camera's zones and lines get
// handles, and dragging a corner of a zone or an end of a line moves it. "Add zone", click the corners on the picture,
// then "Finish" (or Enter; Escape drops the shape); "Add line", click its two ends; ✕ beside a shape deletes it.
// "Save" sends the full list of what changed (zones, lines or both) with PUT /api/cameras/<id>/zones and /lines.
// The server checks what is sent and the page does not (one set of rules, one wording): when the server refuses a
// list (400) its text is shown as it wrote it, and the editor keeps the shapes so they can be fixed.
// Coordinates are source pixels, as the server's rules are; a normalized rule stays normalized when dragged.
// Uses drawScene(), renderCounters(), cameraPath() from tracking.js and checkAccess() from dashboard.js.
'use strict';

/**
 * The one tile being edited, or null: {t, zones, lines (copies of the camera's), changed: Set of 'zones' | 'lines',
 * drawing: {kind: 'zone' | 'line', points} | null, drag: {kind, index, point} | null}.
 */
let editing = null;

/** The rules being edited on this tile, or null when it is not being edited. */
function editedRules(t) {
  return editing && editing.t === t ? editing : null;
}

function toggleEditor(t) {
  if (editedRules(t)) closeEditor();
  else openEditor(t);
}

function openEditor(t) {
  if (editing) closeEditor();
  editing = {
    t, zones: structuredClone(t.scene.zones), lines: structuredClone(t.scene.lines), changed: new Set(),
    drawing: null, drag: null,
  };
  t.el.classList.add('editing');
  editorBar(t).hidden = false;
  t.el.querySelector('.edit-rules').textContent = 'close editor';
  say(t.size ? 'Drag a corner to move it, or add a zone or a line.' : 'Waiting for the first picture of this camera…');
  redraw();
}

/** Closes the editor; what was not saved is dropped. */
function closeEditor() {
  const t = editing.t;
  editing = null;
  t.el.classList.remove('editing');
  editorBar(t).hidden = true;
  t.el.querySelector('.edit-rules').textContent = 'edit zones';
  drawScene(t);
}

const editorBar = (t) => t.el.querySelector('.editor-bar');

function say(text, kind = '') {
  const message = editorBar(editing.t).querySelector('.editor-message');
  message.textContent = text;
  message.className = `editor-message ${kind}`;
}

function redraw() {
  drawScene(editing.t);     // draws the edited copies, then drawEditor()
  renderShapeList();
}

// ---- wiring, once per tile ---------------------------------------------------------------------------------------------

function attachEditor(t) {
  const on = (selector, handler) => t.el.querySelector(selector).addEventListener('click', handler);
  on('.edit-rules', () => toggleEditor(t));
  on('.add-zone', () => startDrawing('zone'));
  on('.add-line', () => startDrawing('line'));
  on('.finish', () => finishShape());
  on('.save', () => save());
  on('.discard', () => closeEditor());
  const svg = t.el.querySelector('svg');
  svg.addEventListener('pointerdown', (e) => onPointerDown(t, e));
  svg.addEventListener('pointermove', (e) => onPointerMove(t, e));
  for (const end of ['pointerup', 'pointercancel']) {
    svg.addEventListener(end, () => { if (editedRules(t)) editing.drag = null; });
  }
}

document.addEventListener('keydown', (e) => {
  if (!editing || !editing.drawing) return;
  if (e.key === 'Enter') {
    e.preventDefault();
    finishShape();
  } else if (e.key === 'Escape') {
    editing.drawing = null;
    say('Shape dropped.');
    redraw();
  }
});

// ---- pointer: drawing and dragging -----------------------------------------------------------------------------------

/** Where a pointer event falls on the camera's frame, in source pixels (the picture is scaled to the tile). */
function sourcePoint(t, e) {
  const r = t.el.querySelector('svg').getBoundingClientRect();
  const clamp = (v, max) => Math.min(max, Math.max(0, Math.round(v)));
  return [clamp((e.clientX - r.left) / r.width * t.size.w, t.size.w), clamp((e.clientY - r.top) / r.height * t.size.h, t.size.h)];
}

function onPointerDown(t, e) {
  if (!editedRules(t) || !t.size || e.button !== 0) return;
  const handle = e.target.closest('.handle');
  if (handle) {
    editing.drag = { kind: handle.dataset.kind, index: Number(handle.dataset.index), point: Number(handle.dataset.point) };
    t.el.querySelector('svg').setPointerCapture(e.pointerId);
  } else if (editing.drawing) {
    addPoint(sourcePoint(t, e));
  }
  e.preventDefault();
}

function onPointerMove(t, e) {
  if (!editedRules(t) || !editing.drag) return;
  const { kind, index, point } = editing.drag;
  const shape = editing[`${kind}s`][index];
  const value = inUnitsOf(shape, sourcePoint(t, e));
  if (kind === 'zone') shape.polygon[point] = value;
  else shape[point === 0 ? 'from' : 'to'] = value;
  editing.changed.add(`${kind}s`);
  redraw();
}

/** A point in source pixels, in the units of a rule: pixels, or fractions of the frame when it is normalized. */
function inUnitsOf(rule, [x, y]) {
  if (!rule.normalized) return [x, y];
  const { w, h } = editing.t.size;
  return [Math.round(x / w * 10_000) / 10_000, Math.round(y / h * 10_000) / 10_000];
}

// ---- new shapes ------------------------------------------------------------------------------------------------------

function startDrawing(kind) {
  if (!editing.t.size) return;
  editing.drawing = { kind, points: [] };
  const id = editorBar(editing.t).querySelector('.shape-id');
  id.value = freeId(kind);
  say(kind === 'zone' ? 'Click the corners of the zone, then Finish (or Enter).'
    : 'Click the two ends of the line. Crossing it from the left hand (facing from the first end to the second) '
      + 'to the right hand counts as in.');
  redraw();
}

/** zone-1, zone-2, ...: the first id no zone or line of the camera has (ids are shared by both). */
function freeId(kind) {
  const taken = new Set([...editing.zones, ...editing.lines].map((r) => r.id));
  let n = 1;
  while (taken.has(`${kind}-${n}`)) n++;
  return `${kind}-${n}`;
}

function addPoint(p) {
  editing.drawing.points.push(p);
  if (editing.drawing.kind === 'line' && editing.drawing.points.length === 2) finishShape();
  else redraw();
}

/** The shape being drawn joins the camera's list as drawn, even if the server will refuse it. */
function finishShape() {
  const drawing = editing.drawing;
  if (!drawing) return;
  editing.drawing = null;
  if (drawing.points.length === 0) {
    say('Nothing drawn.');
    redraw();
    return;
  }
  const idInput = editorBar(editing.t).querySelector('.shape-id');
  const id = idInput.value.trim() || freeId(drawing.kind);
  idInput.value = '';
  const [first, second] = drawing.points;
  if (drawing.kind === 'zone') editing.zones.push({ id, polygon: drawing.points, normalized: false });
  else editing.lines.push({ id, from: first, to: second || first, normalized: false });
  editing.changed.add(`${drawing.kind}s`);
  say(`${drawing.kind} ${id} added: Save to keep it.`);
  redraw();
}

function deleteShape(part, index) {
  const [removed] = editing[part].splice(index, 1);
  editing.changed.add(part);
  say(`${part === 'zones' ? 'zone' : 'line'} ${removed.id} deleted: Save to make it so.`);
  redraw();
}

// ---- saving ----------------------------------------------------------------------------------------------------------

/** PUTs each changed list; stops at the first refusal, showing the server's reason. */
async function save() {
  const ed = editing;
  if (ed.drawing) finishShape();      // a shape half drawn is what the user sees: it is part of what they save
  if (ed.changed.size === 0) {
    say('Nothing to save.');
    return;
  }
  const button = editorBar(ed.t).querySelector('.save');
  button.disabled = true;
  try {
    for (const part of ['zones', 'lines']) {
      if (!ed.changed.has(part)) continue;
      const r = await fetch(`${cameraPath(ed.t.id)}/${part}`, {
        method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ed[part]),
      });
      if (!r.ok) {
        if (editing === ed) say(`Not saved (${part}): ${await refusal(r)}`, 'error');
        return;
      }
      ed.t.scene[part] = await r.json();     // the server's answer: the list as it keeps it
      ed[part] = structuredClone(ed.t.scene[part]);
      ed.changed.delete(part);
    }
    if (editing === ed) {
      say(`Saved at ${new Date().toLocaleTimeString()}.`, 'ok');
      redraw();
    }
    renderCounters(ed.t);
  } catch (e) {
    if (editing === ed) say(`Not saved: ${e.message}`, 'error');
  } finally {
    button.disabled = false;
  }
}

/** Why the server refused: its {"error": ...} text (401 and 429 also explained in the page's header). */
async function refusal(r) {
  if (r.status === 401 || r.status === 429) {
    try {
      checkAccess(r);
    } catch (e) {
      return document.getElementById('access').textContent;
    }
  }
  const text = await r.text();
  try {
    return JSON.parse(text).error || text;
  } catch (e) {
    return text || `HTTP ${r.status}`;
  }
}

// ---- drawing the editor's layer --------------------------------------------------------------------------------------

/** Handles on every corner and end, and the shape being drawn; nothing when this tile is not being edited. */
function drawEditor(t) {
  const layer = t.el.querySelector('svg .editor');
  layer.replaceChildren();
  const ed = editedRules(t);
  if (!ed || !t.size) return;
  const radius = Math.max(4, Math.min(t.size.w, t.size.h) / 60);
  const handle = (kind, index, point, rule, p) => {
    const [cx, cy] = toPixels(t, rule, p);
    layer.append(svgElement('circle', {
      class: 'handle', cx, cy, r: radius, 'data-kind': kind, 'data-index': index, 'data-point': point,
    }));
  };
  ed.zones.forEach((z, i) => z.polygon.forEach((p, j) => handle('zone', i, j, z, p)));
  ed.lines.forEach((l, i) => { handle('line', i, 0, l, l.from); handle('line', i, 1, l, l.to); });
  if (ed.drawing) {
    const points = ed.drawing.points;
    layer.append(svgElement('polyline', { class: 'drawing', points: pointsAttribute(points) }));
    for (const [cx, cy] of points) layer.append(svgElement('circle', { class: 'drawn-point', cx, cy, r: radius * 0.7 }));
  }
}

/** The editor's list of zones and lines, each with a button that deletes it. */
function renderShapeList() {
  const list = editorBar(editing.t).querySelector('.shapes');
  list.replaceChildren();
  for (const part of ['zones', 'lines']) {
    editing[part].forEach((rule, i) => {
      const li = document.createElement('li');
      const kind = part === 'zones' ? 'zone' : 'line';
      li.textContent = `${kind} ${rule.id} `;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'delete';
      remove.textContent = '✕';
      remove.title = `delete ${kind} ${rule.id}`;
      remove.addEventListener('click', () => deleteShape(part, i));
      li.append(remove);
      list.append(li);
    });
  }
}
