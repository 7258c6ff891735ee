// Argus dashboard, online training: dataset size per class, model versions (rollback), the last fine-tune runs
// (loss and loss-scale curves, held-out mAP before and after), collected frames, and the annotator (accept, correct or
// delete proposed boxes, draw new ones). Data: GET /api/training, /api/training/dataset, /api/training/frames,
// /api/training/runs, /api/models/<model>/versions every 3 s; hidden when training is off (404).
// Uses colorOf() and checkAccess() from dashboard.js; the access cookie goes with every request.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const section = $('training');
  const state = { model: null, classes: [], framesKey: '', runsKey: '' };

  function api(path, options = {}) {
    const headers = options.body ? { 'content-type': 'application/json' } : {};
    return fetch(path, { ...options, headers }).then(checkAccess);
  }

  const fmt = (v, digits = 3) => (v == null ? '–' : Number(v).toFixed(digits));
  const short = (v) => (v && v.startsWith('sha256:') ? v.slice(0, 15) : v || '–');
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

  async function refresh() {
    let status;
    try {
      const r = await fetch('/api/training');
      if (!r.ok) { section.hidden = true; return; }
      status = await r.json();
    } catch (e) {
      return;
    }
    section.hidden = false;
    state.model = status.model;
    const running = status.running;
    const parts = [`model ${status.model} serving ${short(status.serving)}`, `schedule: ${status.scheduleText}`];
    if (status.nextRunAt) parts.push(`next ${new Date(status.nextRunAt).toLocaleTimeString()}`);
    if (running && running.id) parts.push(`run ${running.id}: iteration ${running.iterations}/${running.of}`);
    else if (status.waiting) parts.push(status.waiting); // why no run starts, e.g. too few held-out objects of a class
    $('training-status').textContent = parts.join(' · ');
    $('train-now').disabled = !!running;
    const [dataset, frames, runs, versions] = await Promise.all([
      api('/api/training/dataset').then((r) => r.json()),
      api('/api/training/frames?limit=60').then((r) => r.json()),
      api('/api/training/runs').then((r) => r.json()),
      api(`/api/models/${encodeURIComponent(status.model)}/versions`).then((r) => r.json()),
    ]);
    renderDataset(dataset);
    renderVersions(versions);
    renderRuns(runs);
    renderFrames(frames);
  }

  function renderDataset(d) {
    state.classes = d.classes.map((c) => c.className);
    $('dataset-summary').textContent = `${d.frames} frames collected (at most ${d.maxFrames}), ${d.labeled} labelled`
      + ` (${d.trainFrames} for training, ${d.valFrames} held out${d.teacherLabeled ? `, ${d.teacherLabeled} by the teacher` : ''})`;
    $('dataset').querySelector('tbody').innerHTML = d.classes.map((c) =>
      `<tr data-class="${esc(c.className)}"><td><i class="swatch" style="background:${colorOf(c.classId)}"></i>${esc(c.className)}</td>`
      + `<td class="num train">${c.train}</td><td class="num val">${c.val}</td></tr>`).join('');
    const select = $('ann-class');
    if (select.options.length !== state.classes.length) {
      select.innerHTML = state.classes.map((n, i) => `<option value="${i}">${esc(n)}</option>`).join('');
    }
  }

  function renderVersions(v) {
    $('rollback').disabled = !v.previous;
    $('rollback').title = v.previous ? `back to ${v.previous}` : 'no previous version';
    $('versions').querySelector('tbody').innerHTML = v.versions.map((x) =>
      `<tr class="${x.serving ? 'serving' : ''}" data-version="${esc(x.version)}"><td>${x.number}</td>`
      + `<td title="${esc(x.version)}">${esc(short(x.version))}${x.serving ? ' (serving)' : ''}${x.rollbackTarget ? ' (rollback target)' : ''}</td>`
      + `<td>${esc(x.state)}</td><td>${x.mapBefore == null ? '' : `${fmt(x.mapBefore)} → ${fmt(x.mapAfter)}`}</td></tr>`).join('');
  }

  function renderRuns(runs) {
    const key = JSON.stringify(runs.map((r) => [r.id, r.state, r.iterations]));
    if (key === state.runsKey) return;
    state.runsKey = key;
    const box = $('runs');
    if (!runs.length) { box.innerHTML = '<p class="hint">No fine-tune yet: label a few frames (and some held-out ones), then Train now or wait for the schedule.</p>'; return; }
    box.innerHTML = runs.slice(0, 5).map((r) =>
      `<div class="run" data-run="${r.id}"><div class="head"><strong>run ${r.id}</strong><span>${esc(r.trigger)}</span>`
      + `<span class="state state-${esc(r.state)}">${esc(r.state)}</span>`
      + `<span>held-out mAP@0.5 ${fmt(r.mapBefore)} → ${fmt(r.mapAfter)}</span>`
      + `<span>${r.iterations}/${r.of} iterations, ${r.trainFrames} + ${r.valFrames} frames</span>`
      + `${r.candidateVersion ? `<span title="${esc(r.candidateVersion)}">${esc(short(r.candidateVersion))}</span>` : ''}</div>`
      + `<canvas width="640" height="90"></canvas><div class="hint">${esc(r.reason || r.error || '')}`
      + ' — <span style="color:#f0883e">loss</span>, <span style="color:#58a6ff">log2 loss scale</span></div></div>').join('');
    runs.slice(0, 5).forEach((r, i) => drawCurves(box.querySelectorAll('canvas')[i], r));
  }

  /** Loss (left axis) and log2 of the loss scale (right axis) per iteration. */
  function drawCurves(canvas, run) {
    const ctx = canvas.getContext('2d');
    const w = canvas.width, h = canvas.height, pad = 6;
    ctx.clearRect(0, 0, w, h);
    const line = (points, color) => {
      if (!points.length) return;
      const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
      const x0 = 1, x1 = Math.max(run.of, ...xs);
      let y0 = Math.min(...ys), y1 = Math.max(...ys);
      if (y1 - y0 < 1e-9) { y0 -= 1; y1 += 1; }
      ctx.strokeStyle = color; ctx.beginPath();
      points.forEach(([x, y], i) => {
        const px = pad + (w - 2 * pad) * (x - x0) / Math.max(1, x1 - x0);
        const py = h - pad - (h - 2 * pad) * (y - y0) / (y1 - y0);
        if (i === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
      });
      ctx.stroke();
      ctx.fillStyle = color; ctx.font = '10px sans-serif';
      ctx.fillText(`${fmt(ys[ys.length - 1], 2)}`, w - 40, color === '#f0883e' ? 12 : 24);
    };
    line(run.loss || [], '#f0883e');
    line((run.lossScale || []).map(([x, s]) => [x, Math.log2(s)]), '#58a6ff');
  }

  function renderFrames(frames) {
    const key = JSON.stringify(frames.map((f) => [f.id, f.labelCount, f.labelSource]));
    if (key === state.framesKey) return;
    state.framesKey = key;
    $('frames').innerHTML = frames.map((f) => {
      const kind = f.labeled ? (f.labelSource === 'teacher' ? 'teacher' : 'labeled') : 'unlabeled';
      const what = f.labeled ? `${f.labelCount} labels${f.labelSource === 'teacher' ? ' (teacher)' : ''}` : `${f.proposalCount} proposed`;
      return `<div class="thumb ${kind}" data-frame="${esc(f.id)}" title="${esc(f.camera)} frame ${f.frame}, confidence ${fmt(f.confidence, 2)}">`
        + `<img loading="lazy" src="${esc(f.image)}" alt=""><span class="badge">${f.split === 'val' ? 'held out' : 'train'} · ${what}</span></div>`;
    }).join('');
    for (const el of $('frames').querySelectorAll('.thumb')) el.addEventListener('click', () => openAnnotator(el.dataset.frame));
  }

  // ---- annotator ----
  const ann = { frame: null, boxes: [], selected: -1, drag: null };
  const svg = $('ann-svg');
  const NS = 'http://www.w3.org/2000/svg';

  async function openAnnotator(id) {
    const r = await api(`/api/training/frames/${encodeURIComponent(id)}`);
    if (!r.ok) return;
    const f = await r.json();
    ann.frame = f;
    const source = f.labels != null ? f.labels : f.proposals;
    const kind = f.labels != null ? 'label' : 'proposal';
    ann.boxes = source.map((d) => ({ cls: d.classId, x: d.box.x, y: d.box.y, w: d.box.w, h: d.box.h, kind, confidence: d.confidence,
      duplicate: kind === 'proposal' && d.duplicate === true }));
    ann.selected = -1;
    $('ann-title').textContent = `${f.camera} frame ${f.frame} (${f.split === 'val' ? 'held out' : 'train'}${f.labeled ? `, labelled by ${f.labelSource}` : ', unlabelled'})`;
    $('ann-message').textContent = '';
    svg.setAttribute('viewBox', `0 0 ${f.width} ${f.height}`);
    $('ann-img').src = f.image;
    $('annotator').dataset.frame = f.id;
    render();
    if (!$('annotator').open) $('annotator').showModal();
  }

  function render() {
    svg.replaceChildren();
    const f = ann.frame;
    const scale = f.width / Math.max(1, svg.getBoundingClientRect().width || f.width);
    ann.boxes.forEach((b, i) => {
      const color = colorOf(b.cls);
      const r = document.createElementNS(NS, 'rect');
      r.setAttribute('class', `box ${b.kind}${b.duplicate ? ' duplicate' : ''}${i === ann.selected ? ' selected' : ''}`);
      r.dataset.index = i;
      r.setAttribute('x', b.x); r.setAttribute('y', b.y); r.setAttribute('width', b.w); r.setAttribute('height', b.h);
      r.setAttribute('stroke', color);
      const label = document.createElementNS(NS, 'text');
      label.setAttribute('x', b.x + 2); label.setAttribute('y', Math.max(12 * scale, b.y - 3 * scale));
      label.setAttribute('font-size', 12 * scale);
      label.textContent = `${state.classes[b.cls] || b.cls}${b.kind === 'proposal' ? ` ${Math.round(b.confidence * 100)}%` : ''}${b.duplicate && b.kind === 'proposal' ? ' duplicate' : ''}`;
      svg.append(r, label);
      if (b.kind === 'proposal') {
        const ok = document.createElementNS(NS, 'text');
        ok.setAttribute('class', 'accept'); ok.dataset.index = i;
        ok.setAttribute('x', b.x + b.w - 12 * scale); ok.setAttribute('y', b.y + 13 * scale);
        ok.setAttribute('font-size', 14 * scale);
        ok.textContent = '✓';
        svg.append(ok);
      }
      if (i === ann.selected) {
        const hnd = document.createElementNS(NS, 'rect');
        const s = 8 * scale;
        hnd.setAttribute('class', 'handle'); hnd.dataset.index = i;
        hnd.setAttribute('x', b.x + b.w - s / 2); hnd.setAttribute('y', b.y + b.h - s / 2);
        hnd.setAttribute('width', s); hnd.setAttribute('height', s);
        svg.append(hnd);
      }
    });
    if (ann.selected >= 0) $('ann-class').value = String(ann.boxes[ann.selected].cls);
  }

  /** Pointer position in frame pixels. */
  function at(e) {
    const r = svg.getBoundingClientRect();
    return { x: (e.clientX - r.left) * ann.frame.width / r.width, y: (e.clientY - r.top) * ann.frame.height / r.height };
  }

  const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

  svg.addEventListener('pointerdown', (e) => {
    if (!ann.frame) return;
    const p = at(e);
    const t = e.target;
    const index = t.dataset && t.dataset.index != null ? Number(t.dataset.index) : -1;
    svg.setPointerCapture(e.pointerId);
    if (t.classList.contains('accept')) {
      ann.boxes[index].kind = 'label';
      ann.selected = index;
      ann.drag = null;
    } else if (t.classList.contains('handle')) {
      ann.drag = { mode: 'resize', index };
    } else if (index >= 0) {
      ann.selected = index;
      const b = ann.boxes[index];
      ann.drag = { mode: 'move', index, dx: p.x - b.x, dy: p.y - b.y, moved: false };
    } else {
      const cls = Number($('ann-class').value || 0);
      ann.boxes.push({ cls, x: p.x, y: p.y, w: 0, h: 0, kind: 'label', confidence: 1 });
      ann.selected = ann.boxes.length - 1;
      ann.drag = { mode: 'draw', index: ann.selected, x0: p.x, y0: p.y };
    }
    render();
  });

  svg.addEventListener('pointermove', (e) => {
    const d = ann.drag;
    if (!d) return;
    const p = at(e);
    const f = ann.frame;
    const b = ann.boxes[d.index];
    if (d.mode === 'draw') {
      const x = clamp(p.x, 0, f.width), y = clamp(p.y, 0, f.height);
      b.x = Math.min(d.x0, x); b.y = Math.min(d.y0, y); b.w = Math.abs(x - d.x0); b.h = Math.abs(y - d.y0);
    } else if (d.mode === 'move') {
      b.x = clamp(p.x - d.dx, 0, f.width - b.w); b.y = clamp(p.y - d.dy, 0, f.height - b.h);
      d.moved = true;
    } else if (d.mode === 'resize') {
      b.w = clamp(p.x - b.x, 1, f.width - b.x); b.h = clamp(p.y - b.y, 1, f.height - b.y);
    }
    if (d.mode !== 'draw' && b.kind === 'proposal') b.kind = 'label'; // corrected: kept as corrected
    render();
  });

  svg.addEventListener('pointerup', () => {
    const d = ann.drag;
    ann.drag = null;
    if (d && d.mode === 'draw') {
      const b = ann.boxes[d.index];
      if (b.w < 2 || b.h < 2) { ann.boxes.splice(d.index, 1); ann.selected = -1; } // a click, not a box
    }
    render();
  });

  $('ann-class').addEventListener('change', () => {
    if (ann.selected < 0) return;
    const b = ann.boxes[ann.selected];
    b.cls = Number($('ann-class').value);
    b.kind = 'label';
    render();
  });

  function deleteSelected() {
    if (ann.selected < 0) return;
    ann.boxes.splice(ann.selected, 1);
    ann.selected = -1;
    render();
  }

  $('ann-delete-box').addEventListener('click', deleteSelected);
  $('annotator').addEventListener('keydown', (e) => {
    if ((e.key === 'Delete' || e.key === 'Backspace') && e.target.tagName !== 'SELECT') { e.preventDefault(); deleteSelected(); }
  });
  // duplicates (same class, overlapping a higher-scored proposal) stay proposals: ✓ keeps one on purpose
  $('ann-accept-all').addEventListener('click', () => { for (const b of ann.boxes) if (!b.duplicate) b.kind = 'label'; render(); });

  $('ann-save').addEventListener('click', async () => {
    const kept = ann.boxes.filter((b) => b.kind === 'label');
    const labels = kept.map((b) => ({ classId: b.cls, confidence: b.confidence, box: { x: b.x, y: b.y, w: b.w, h: b.h } }));
    const keepDuplicates = kept.some((b) => b.duplicate); // a duplicate ✓'d by hand is meant
    const r = await api(`/api/training/frames/${encodeURIComponent(ann.frame.id)}/labels`, { method: 'PUT', body: JSON.stringify({ labels, keepDuplicates }) });
    const body = await r.json();
    if (!r.ok) { $('ann-message').textContent = body.error; return; }
    await openAnnotator(ann.frame.id);
    $('ann-message').textContent = `saved ${labels.length} label(s)`;
    state.framesKey = '';
    refresh();
  });

  $('ann-delete-frame').addEventListener('click', async () => {
    const r = await api(`/api/training/frames/${encodeURIComponent(ann.frame.id)}`, { method: 'DELETE' });
    if (!r.ok) { $('ann-message').textContent = (await r.json()).error; return; }
    $('annotator').close();
    state.framesKey = '';
    refresh();
  });

  $('train-now').addEventListener('click', async () => {
    const r = await api('/api/training/runs', { method: 'POST' });
    $('training-status').textContent = r.ok ? 'run started' : (await r.json()).error;
    state.runsKey = '';
    setTimeout(refresh, 500);
  });

  $('rollback').addEventListener('click', async () => {
    const r = await api(`/api/models/${encodeURIComponent(state.model)}/rollback`, { method: 'POST' });
    $('training-status').textContent = r.ok ? `rolled back to ${short((await r.json()).version)}` : (await r.json()).error;
    setTimeout(refresh, 500);
  });

  refresh();
  setInterval(refresh, 3000);
})();
