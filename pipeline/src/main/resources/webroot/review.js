// Review: what a recorded camera saw. A timeline per camera over a chosen span (10 min to 7 days; the wheel zooms about
// the pointer, a drag moves in time, "now" follows the present) with the recorded spans of that span
// (GET /api/recordings/:camera) and its events (GET /api/events, the node's recent history, merged with
// GET /api/recordings/:camera/events, those kept with the recording; with their class and zone/line changes); a click plays
// the recording from there; the boxes the detector saw in each frame (GET /api/recordings/:camera/detections) drawn over
// the playback; the previous and next event a button away; an event's clip to download.
//
// Playback: where the browser has Media Source Extensions and plays the camera's codec, every segment goes through one
// SourceBuffer at its wall-clock place, so playback runs across segment ends without reloading the element (MsePlayer);
// otherwise each segment plays alone in the <video> and the next is loaded when one ends (FilePlayer). Both map the
// picture shown to its wall-clock time (playheadMs), which places the boxes and the timeline's playhead.
'use strict';

(() => {
  const MIN_SPAN = 60_000;
  const MAX_SPAN = 7 * 86_400_000;
  let segmentLimit = 10_000;   // the most one list request returns (the API's own bound)
  let eventLimit = 1000;       // likewise for events
  const section = document.getElementById('review');
  const select = document.getElementById('review-camera');
  const canvas = document.getElementById('timeline');
  const video = document.getElementById('review-video');
  const svg = document.getElementById('review-boxes');
  const where = document.getElementById('review-at');
  const clipLink = document.getElementById('review-clip');
  const note = document.getElementById('review-note');
  const spanButtons = [...document.querySelectorAll('#review-spans button')];
  const nowButton = document.getElementById('review-now');
  const state = {
    camera: null, span: 3_600_000, end: Date.now(), follow: true, from: 0, to: 0,
    segments: [], segmentsCut: false, events: [], eventsTotal: 0, loaded: null, fetches: 0, lastFetch: 0, draws: 0,
    labels: [], player: null, frames: [], framesFrom: 0, framesTo: 0, error: null, log: [],
  };
  let viewGen = 0;
  let playGen = 0;
  let useMse = true;   // false: always the <video src> path (for comparison, and tests)
  const mseFailed = new Set();   // cameras whose recording MSE could not play: the <video src> path for them
  let keepBehindS = 60;   // played media kept in the SourceBuffer behind the playhead

  async function json(path) { return (await fetch(path).then(checkAccess)).json(); }
  const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  function remember(what) {   // the last things that went wrong or changed, for people and tests (reviewState().log)
    state.log.push(`${new Date().toISOString().slice(11, 23)} ${what}`);
    if (state.log.length > 30) state.log.shift();
  }

  // the cameras that record, here or (in a cluster) on any member: the review section shows only when there is one
  async function refreshCameras() {
    try {
      const status = await json('/api/recordings');
      const all = [status, ...Object.values(status.members || {})];
      const ids = [...new Set(all.flatMap((s) => Object.keys((s && s.cameras) || {})))].sort();
      section.hidden = ids.length === 0;
      const known = [...select.options].map((o) => o.value);
      if (ids.join() !== known.join()) {
        select.replaceChildren(...ids.map((id) => new Option(id, id)));
        if (!state.camera && ids.length) choose(ids[0]);
      }
    } catch (e) { /* the access message says why */ }
  }

  async function choose(camera) {
    if (state.player && state.player.camera !== camera) {
      state.player.close();
      state.player = null;
      video.pause();
      video.removeAttribute('src');
      video.load();
    }
    state.camera = camera;
    select.value = camera;
    await refreshTimeline();
  }

  // ---- the timeline: a span ending at `end` (the present while following) ----

  function setView() {
    if (state.follow) state.end = Date.now();
    state.to = Math.ceil(state.end);   // whole milliseconds, as the API takes them
    state.from = Math.floor(state.end - state.span);
  }

  function showView() {
    setView();
    spanButtons.forEach((b) => b.setAttribute('aria-pressed', String(Number(b.dataset.span) === state.span)));
    nowButton.setAttribute('aria-pressed', String(state.follow));
  }

  // the segments and events of the visible span; a response to an older view is dropped
  async function refreshTimeline() {
    if (!state.camera) return;
    showView();
    const gen = ++viewGen;
    const { from, to, span } = state;
    const c = encodeURIComponent(state.camera);
    state.lastFetch = Date.now();
    // events from the node's history (recent, any node's) and from the recording's event log (as old as the
    // recording; the history forgets, a restart empties it): the same event in both is the history's, its latest
    const [list, spans, events, stored] = await Promise.all([
      json(`/api/recordings/${c}?from=${from}&to=${to}&limit=${segmentLimit}`),
      // the recorded time as joined spans: a week of segments in one short list
      json(`/api/recordings/${c}/spans?from=${from}&to=${to}&limit=${segmentLimit}`).catch(() => null),
      json(`/api/events?camera=${c}&after=${from}&before=${to}&limit=${eventLimit}`),
      json(`/api/recordings/${c}/events?from=${from}&to=${to}&limit=${Math.min(eventLimit, 1000)}`)
        .catch(() => ({ events: [], more: false }))]);
    if (gen !== viewGen) return;
    state.segments = list.segments;
    state.spans = spans ? spans.spans : null;
    // what the timeline draws is cut only when its list of spans is (the segment list is for playback's start)
    state.segmentsCut = spans ? !!spans.more : !!list.more;
    const byId = new Map();
    for (const e of stored.events || []) byId.set(e.id, e);
    for (const e of events.events) byId.set(e.id, e);
    state.storedEvents = (stored.events || []).length;
    // the newest within the limit, as each list is: the page holds no more than one list's worth
    const merged = [...byId.values()].sort((a, b) => b.start - a.start);
    state.events = merged.slice(0, eventLimit).reverse();
    state.eventsTotal = Math.max(events.total != null ? events.total : events.events.length, merged.length);
    state.storedCut = !!stored.more;
    state.loaded = { from, to, span };
    state.fetches++;
    // lists are bounded: say what is missing (segments come oldest first, events newest first)
    const cut = [];
    if (state.segmentsCut && recorded().length) {
      const last = recorded()[recorded().length - 1];
      cut.push(`recordings shown up to ${label(last[0], true)} (the list stops at ${recorded().length} ${state.spans ? 'spans' : 'segments'}: zoom in for the rest)`);
    }
    if (state.eventsTotal > state.events.length) cut.push(`the newest ${state.events.length} of ${state.eventsTotal} events shown`);
    else if (state.storedCut) cut.push(`the newest ${state.events.length} events shown (zoom in for older ones)`);
    note.textContent = cut.join('; ');
    draw();
  }

  // a view change draws at once with what is known and fetches the new span a moment later (one fetch per gesture)
  let refetch = null;
  function changeView(span, end, follow) {
    const now = Date.now();
    state.span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, Math.round(span)));
    state.follow = follow || end >= now;
    state.end = Math.min(end, now);
    showView();
    draw();
    clearTimeout(refetch);
    refetch = setTimeout(() => refreshTimeline().catch((e) => remember(`timeline: ${e}`)), 150);
  }

  // refetched while following, less often the longer the span (a 7-day list is large)
  const refreshEvery = () => Math.min(300_000, Math.max(10_000, state.span / 360));

  const x = (t) => ((t - state.from) / (state.to - state.from)) * canvas.width;

  // tick steps: the first that gives at most one label per 110 px
  const STEPS = [10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3, 7200e3, 10800e3, 21600e3, 43200e3, 86400e3,
    2 * 86400e3, 7 * 86400e3];
  function ticks() {
    const span = state.to - state.from;
    const step = STEPS.find((s) => span / s <= canvas.width / 110) || STEPS[STEPS.length - 1];
    const d = new Date(state.from);   // local time, aligned to the step
    if (step >= 86400e3) d.setHours(0, 0, 0, 0);
    else if (step >= 3600e3) d.setHours(d.getHours() - (d.getHours() % (step / 3600e3)), 0, 0, 0);
    else if (step >= 60e3) d.setMinutes(d.getMinutes() - (d.getMinutes() % (step / 60e3)), 0, 0);
    else d.setSeconds(d.getSeconds() - (d.getSeconds() % (step / 1e3)), 0);
    const out = [];
    for (let t = d.getTime(); t <= state.to && out.length < 100;) {
      if (t >= state.from) out.push(t);
      const n = new Date(t);
      if (step >= 86400e3) n.setDate(n.getDate() + step / 86400e3);
      else if (step >= 3600e3) n.setHours(n.getHours() + step / 3600e3);
      else n.setTime(t + step);
      t = n.getTime();
    }
    return { step, out };
  }

  // hours:minutes within a day (with seconds on short spans), the day at midnight, day + hour over longer spans
  function label(t, withDay, seconds) {
    const d = new Date(t);
    const day = d.toLocaleDateString([], { weekday: 'short', day: 'numeric' });
    const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: seconds ? '2-digit' : undefined });
    if (d.getHours() === 0 && d.getMinutes() === 0 && d.getSeconds() === 0) return day;
    return withDay ? `${day} ${time}` : time;
  }

  // the recorded time to draw, [start, end] pairs (end -1: being written): the joined spans, or the segments
  const recorded = () => (state.spans ? state.spans : state.segments.map((s) => [s.startMs, s.endMs]));

  function draw() {
    setView();
    const g = canvas.getContext('2d');
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = '#2d333b';
    g.fillRect(0, 0, canvas.width, canvas.height);
    g.fillStyle = '#3fb950';   // recorded: segments that meet within a pixel drawn as one span
    const px = (state.to - state.from) / canvas.width;
    let run = null;
    const flush = () => { if (run) g.fillRect(x(run[0]), 34, Math.max(1, x(run[1]) - x(run[0])), 14); };
    for (const [start, until] of recorded()) {
      const end = until >= 0 ? until : Date.now();
      if (run && start - run[1] <= px) run[1] = Math.max(run[1], end);
      else { flush(); run = [start, end]; }
    }
    flush();
    // where a bounded list stopped: hatched, not to be read as nothing recorded (spans and segments come oldest first,
    // events newest first)
    g.fillStyle = hatch(g);
    if (state.segmentsCut && recorded().length) {
      const last = recorded()[recorded().length - 1];
      const from = x(last[1] >= 0 ? last[1] : last[0]);
      g.fillRect(from, 34, canvas.width - from, 14);
    }
    if (state.eventsTotal > state.events.length && state.events.length) g.fillRect(0, 8, x(state.events[0].start), 20);
    for (const e of state.events) {   // events by class; zone and line changes marked above them
      g.fillStyle = classColor(e.className);
      const end = e.end != null ? e.end : Date.now();
      g.fillRect(x(e.start), 8, Math.max(2, x(end) - x(e.start)), 20);
      if ((e.crossedLines || []).length || (e.enteredZones || []).length) {
        g.fillStyle = '#e6e9ee';
        g.fillRect(x(e.start), 2, 2, 6);
      }
    }
    if (state.player && state.player.active()) {
      g.fillStyle = '#f47067';
      g.fillRect(x(playheadMs()) - 1, 0, 2, canvas.height);
    }
    g.fillStyle = '#8b95a3';
    g.font = '11px sans-serif';
    const { step, out } = ticks();
    const longSpan = state.to - state.from > 86_400_000;
    state.labels = out.map((t, i) => label(t, longSpan || (i === 0 && step >= 3600e3), step < 60e3));
    out.forEach((t, i) => {
      g.fillRect(x(t), 50, 1, 4);
      g.fillText(state.labels[i], Math.min(x(t) + 2, canvas.width - g.measureText(state.labels[i]).width - 2), 63);
    });
    state.draws++;
  }

  let pattern = null;
  function hatch(g) {
    if (!pattern) {
      const tile = document.createElement('canvas');
      tile.width = tile.height = 6;
      const t = tile.getContext('2d');
      t.strokeStyle = '#6e7681';
      t.beginPath();
      t.moveTo(0, 6);
      t.lineTo(6, 0);
      t.stroke();
      pattern = g.createPattern(tile, 'repeat');
    }
    return pattern;
  }

  function classColor(name) {
    let h = 0;
    for (const ch of name || '') h = (h * 31 + ch.charCodeAt(0)) % 360;
    return `hsl(${h} 70% 55%)`;
  }

  // ---- playback ----

  // segments from wall-clock time t on (the one holding t first), a few at a time
  async function segmentsFrom(camera, t, limit) {
    const c = encodeURIComponent(camera);
    return (await json(`/api/recordings/${c}?from=${Math.floor(t)}&to=${Date.now() + 60_000}&limit=${limit}`)).segments;
  }

  // a segment's bytes from `first` to `last` or its end as it is now (it may still be being written); empty when none
  // are new
  async function bytesOf(url, first, last) {
    const range = `bytes=${first}-${last != null ? last : ''}`;
    const r = checkAccess(await fetch(url, { headers: { Range: range }, cache: 'no-store' }));
    if (r.status === 416) return new Uint8Array(0);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return new Uint8Array(await r.arrayBuffer());
  }

  // the MIME type with the codec of an H.264 segment, from its avcC box (profile, compatibility, level); null for
  // anything else (HEVC cameras play through the <video src> path)
  function mimeOf(bytes) {
    const hex = (v) => v.toString(16).padStart(2, '0');
    for (let i = 4; i + 8 <= bytes.length; i++) {
      if (bytes[i] === 0x61 && bytes[i + 1] === 0x76 && bytes[i + 2] === 0x63 && bytes[i + 3] === 0x43 && bytes[i + 4] === 1) {
        return `video/mp4; codecs="avc1.${hex(bytes[i + 5])}${hex(bytes[i + 6])}${hex(bytes[i + 7])}"`;
      }
    }
    return null;
  }

  // Every segment through one SourceBuffer: media time 0 is `origin` (wall-clock ms, the start of the segment a seek
  // landed in), each file appended with timestampOffset = its start - origin (each file's own timestamps start at 0),
  // so consecutive segments play on without the element reloading. Kept bounded: keepBehindS behind the playhead,
  // one segment ahead of the one playing. The segment being written is followed by byte ranges. A gap between
  // recordings (events and motion modes record spans) is a gap in the buffered ranges: playback jumps over it.
  class MsePlayer {
    constructor(camera, mime) {
      this.camera = camera;
      this.mime = mime;
      this.source = new MediaSource();
      this.url = URL.createObjectURL(this.source);
      this.buffer = null;
      this.origin = 0;
      this.entries = [];      // appended segments, in order: {seg, bytes (appended so far), done, polled}
      this.upcoming = [];     // listed segments after the last appended
      this.listedAt = 0;
      this.listedEmpty = 0;   // lists in a row with nothing after the last segment: asked less often (up to 10 s)
      this.gen = 0;           // a seek makes the work of the one before void
      this.target = null;     // wall-clock ms while a seek is on its way
      this.tail = Promise.resolve();
      this.pumping = false;
      this.appended = 0;      // segments begun, since the player was made
      this.followed = 0;      // byte ranges of a segment being written appended after its first bytes
      this.jumps = 0;         // gaps jumped over
      this.movedTo = null;    // the media time this player last moved the element to (its own seeks are not the user's)
    }

    async open() {
      const opened = new Promise((resolve) => this.source.addEventListener('sourceopen', resolve, { once: true }));
      video.src = this.url;
      await opened;
      this.buffer = this.source.addSourceBuffer(this.mime);
      this.buffer.mode = 'segments';
    }

    close() {
      this.gen++;
      URL.revokeObjectURL(this.url);
    }

    active() { return this.buffer != null && (this.target != null || this.entries.length > 0); }

    playheadMs() { return this.target != null ? this.target : this.origin + video.currentTime * 1000; }

    // buffer work one at a time, each waiting for the one before
    locked(fn) {
      const p = this.tail.then(fn);
      this.tail = p.catch(() => {});
      return p;
    }

    idle() {
      const b = this.buffer;
      return b.updating ? new Promise((resolve) => b.addEventListener('updateend', resolve, { once: true })) : Promise.resolve();
    }

    async append(bytes) {
      await this.idle();
      try {
        this.buffer.appendBuffer(bytes);
      } catch (e) {
        if (e.name !== 'QuotaExceededError') throw e;
        await this.trim(5);   // full: keep only the last seconds played, then once more
        this.buffer.appendBuffer(bytes);
      }
      await this.idle();
    }

    // what lies more than `behind` seconds behind the playhead goes
    async trim(behind) {
      await this.idle();
      const b = this.buffer.buffered;
      const until = video.currentTime - behind;
      if (b.length && b.start(0) < until - 1) {
        this.buffer.remove(0, until);
        await this.idle();
      }
      const keep = this.playheadMs() - behind * 1000;
      while (this.entries.length > 2 && this.entries[0].done && this.entries[0].seg.endMs < keep) this.entries.shift();
    }

    // media seconds buffered after the playhead without a gap
    ahead() {
      const b = video.buffered;
      const t = video.currentTime;
      for (let i = 0; i < b.length; i++) if (b.start(i) <= t + 0.1 && t < b.end(i)) return b.end(i) - t;
      return 0;
    }

    async seek(t) {
      const m = (t - this.origin) / 1000;
      const b = video.buffered;
      for (let i = 0; i < b.length; i++) {
        if (this.target == null && m >= b.start(i) && m < b.end(i) - 0.1) {   // already there: no reload
          this.moveTo(m);
          video.play().catch(() => {});
          return true;
        }
      }
      const gen = ++this.gen;
      this.target = t;
      const list = await segmentsFrom(this.camera, t, 20);
      const at = list.findIndex((s) => s.endMs < 0 || s.endMs > t);
      if (gen !== this.gen) return true;
      if (at < 0) { this.target = null; return false; }
      const seg = list[at];
      let bytes = await bytesOf(seg.url, 0);
      for (let i = 0; i < 20 && bytes.length === 0 && gen === this.gen; i++) {   // just opened: its first fragment comes
        await wait(250);
        bytes = await bytesOf(seg.url, 0);
      }
      if (gen !== this.gen) return true;
      await this.locked(async () => {
        if (gen !== this.gen) return;
        await this.idle();
        this.buffer.abort();
        if (this.buffer.buffered.length) {
          this.buffer.remove(0, Infinity);
          await this.idle();
        }
        this.entries = [];
        this.upcoming = list.slice(at + 1);
        this.origin = seg.startMs;
        this.buffer.timestampOffset = 0;
        const entry = { seg, bytes: 0, done: false, polled: Date.now() };
        this.entries.push(entry);
        this.appended++;
        await this.append(bytes);
        entry.bytes = bytes.length;
        entry.done = seg.complete && bytes.length >= seg.bytes;
      });
      if (gen !== this.gen) return true;
      this.moveTo(Math.max(0, (t - this.origin) / 1000));
      this.target = null;
      video.play().catch(() => {});
      this.pump();
      return true;
    }

    // keeps one segment appended ahead of the one playing, and follows the segment being written
    async pump() {
      if (this.pumping || !this.buffer || this.target != null) return;
      this.pumping = true;
      const gen = this.gen;
      try {
        while (gen === this.gen) {
          const last = this.entries[this.entries.length - 1];
          if (!last) break;
          if (!last.done) {
            // the segment being written: its new bytes, when playback is near the end of what came
            if (this.ahead() > 3 || Date.now() - last.polled < 500) break;
            last.polled = Date.now();
            if (!(await this.follow(last, gen))) break;
            continue;
          }
          // the one playing and the next, and at least 2 s ahead (a segment can be a single picture long)
          const playhead = this.playheadMs();
          if (this.entries.filter((e) => e.seg.endMs > playhead).length >= 2 && last.seg.endMs - playhead >= 2000) break;
          const next = await this.next(last.seg);
          if (!next || gen !== this.gen) break;
          const bytes = await bytesOf(next.url, 0);
          await this.locked(async () => {
            if (gen !== this.gen) return;
            await this.idle();
            this.buffer.abort();   // a file starts: the parser waits for its init segment, then its timestamps apply
            this.buffer.timestampOffset = (next.startMs - this.origin) / 1000;
            const entry = { seg: next, bytes: 0, done: false, polled: Date.now() };
            this.entries.push(entry);
            this.upcoming = this.upcoming.filter((s) => s.startMs > next.startMs);
            this.appended++;
            await this.append(bytes);
            entry.bytes = bytes.length;
            entry.done = next.complete && bytes.length >= next.bytes;
          });
        }
        if (gen === this.gen) await this.locked(() => (gen === this.gen ? this.trim(keepBehindS) : null));
      } catch (e) {
        state.error = `playback: ${e}`;
        remember(state.error);
      } finally {
        this.pumping = false;
      }
    }

    // the segment after `seg`, from the list or asked for (once a second when there is none yet, less often after)
    async next(seg) {
      let next = this.upcoming.find((s) => s.startMs > seg.startMs);
      if (!next && Date.now() - this.listedAt > Math.min(10_000, 1000 * (1 + this.listedEmpty))) {
        this.listedAt = Date.now();
        const list = await segmentsFrom(this.camera, seg.endMs >= 0 ? seg.endMs : seg.startMs, 20);
        this.upcoming = list.filter((s) => s.startMs > seg.startMs);
        next = this.upcoming[0];
        this.listedEmpty = next ? 0 : this.listedEmpty + 1;
      }
      return next;
    }

    // the bytes written since; true when something changed (bytes appended, or the segment found complete)
    async follow(entry, gen) {
      const more = await bytesOf(entry.seg.url, entry.bytes);
      if (gen !== this.gen) return false;
      if (more.length) {
        await this.locked(async () => {
          if (gen !== this.gen) return;
          await this.append(more);
          entry.bytes += more.length;
          this.followed++;
        });
        if (entry.seg.complete && entry.bytes >= entry.seg.bytes) entry.done = true;
        return true;
      }
      const list = await segmentsFrom(this.camera, entry.seg.startMs, 5);
      if (gen !== this.gen) return false;
      const now = list.find((s) => s.name === entry.seg.name);
      const later = list.filter((s) => s.startMs > entry.seg.startMs);
      this.upcoming = later;
      if (now && now.complete) {
        entry.seg = now;
        entry.done = entry.bytes >= now.bytes;
        entry.polled = 0;   // the rest at once
        return true;
      }
      if (!now || later.length) {   // gone, or left unfinished (a writer that stopped): go on with the next
        entry.done = true;
        entry.seg = { ...entry.seg, endMs: now && now.endMs >= 0 ? now.endMs : (later.length ? later[0].startMs : Date.now()) };
        return true;
      }
      return false;
    }

    // four times a second: over a gap between recordings, and on with the fetching
    tick() {
      if (!this.buffer || this.target != null) return;
      if (!video.paused && !video.seeking) {
        const b = video.buffered;
        const t = video.currentTime;
        let inside = -1;
        let next = -1;
        for (let i = 0; i < b.length; i++) {
          if (b.start(i) <= t + 0.02 && t < b.end(i)) inside = i;
          else if (b.start(i) > t && next < 0) next = i;
        }
        // stalled at the end of a range (or between two) with more recorded later: on to it
        if (next >= 0 && (inside < 0 || (b.end(inside) - t < 0.12 && (video.readyState < 3 || b.end(inside) - t < 0.05)))) {
          remember(`gap ${(b.start(next) - t).toFixed(3)} s jumped at ${t.toFixed(3)}`);
          this.jumps++;
          this.moveTo(b.start(next) + 0.001);
        }
      }
      this.pump();
    }

    moveTo(m) {
      this.movedTo = m;
      video.currentTime = m;
    }

    // a seek in the element's own controls to where nothing is buffered: as a click on the timeline
    seeking() {
      if (this.target != null || !this.buffer || (this.movedTo != null && Math.abs(video.currentTime - this.movedTo) < 0.002)) return;
      const m = video.currentTime;
      const b = video.buffered;
      for (let i = 0; i < b.length; i++) if (m >= b.start(i) && m < b.end(i)) return;
      playAt(this.origin + m * 1000).catch((e) => remember(`playback: ${e}`));
    }

    describe() {
      const b = video.buffered;
      const ranges = [];
      for (let i = 0; i < b.length; i++) ranges.push([Math.round(this.origin + b.start(i) * 1000), Math.round(this.origin + b.end(i) * 1000)]);
      return { mse: true, mime: this.mime, origin: this.origin, appended: this.appended, followed: this.followed,
        jumps: this.jumps, buffered: ranges, entries: this.entries.map((e) => e.seg.name) };
    }
  }

  // One segment at a time in the <video>, the next loaded when one ends: where MSE or the codec is not there.
  class FilePlayer {
    constructor(camera) {
      this.camera = camera;
      this.playing = null;
      this.appended = 0;
      this.gen = 0;
      this.onEnded = () => this.advance().catch((e) => remember(`playback: ${e}`));
      video.addEventListener('ended', this.onEnded);
    }

    close() {
      this.gen++;
      video.removeEventListener('ended', this.onEnded);
    }

    active() { return this.playing != null; }

    playheadMs() { return this.playing ? this.playing.startMs + video.currentTime * 1000 : 0; }

    async seek(t) {
      const gen = ++this.gen;
      const list = await segmentsFrom(this.camera, t, 2);
      if (gen !== this.gen) return true;
      const s = list.find((v) => v.endMs < 0 || v.endMs > t);   // in a gap: the next recorded picture
      if (!s) return false;
      const offset = Math.max(0, t - s.startMs) / 1000;
      if (this.playing && this.playing.name === s.name) {
        video.currentTime = offset;
      } else {
        this.playing = s;
        this.appended++;
        video.src = s.url;
        video.addEventListener('loadedmetadata', () => { video.currentTime = offset; }, { once: true });
      }
      video.play().catch(() => {});
      return true;
    }

    // the next segment when one ends
    async advance() {
      if (!this.playing) return;
      const list = await segmentsFrom(this.camera, this.playing.startMs, 3);
      const next = list.find((s) => s.startMs > this.playing.startMs);
      if (next) await this.seek(next.startMs);
    }

    tick() {}

    seeking() {}

    describe() { return { mse: false, appended: this.appended, segment: this.playing && this.playing.name }; }
  }

  // plays the camera's recording from wall-clock time t
  async function playAt(t) {
    const gen = ++playGen;
    const camera = state.camera;
    let player = state.player;
    if (!player || player.camera !== camera || (player instanceof MsePlayer) !== (useMse && !mseFailed.has(camera))) {
      if (player) player.close();
      state.player = player = null;
      // the codec, from the first bytes of the segment at t: MSE when the browser plays it, else one file at a time
      let mime = null;
      if (useMse && !mseFailed.has(camera) && window.MediaSource && typeof MediaSource.isTypeSupported === 'function') {
        const list = await segmentsFrom(camera, t, 2);
        const s = list.find((v) => v.endMs < 0 || v.endMs > t);
        if (!s) { where.textContent = 'nothing recorded from there'; return; }
        for (let i = 0; i < 20 && !mime; i++) {
          mime = mimeOf(await bytesOf(s.url, 0, 65_535));   // the moov comes first; of a segment being written, what is there
          if (!mime && i === 0 && s.complete) break;
          if (!mime) await wait(250);
        }
        if (mime && !MediaSource.isTypeSupported(mime)) {
          remember(`${mime} not supported by MSE: one file at a time`);
          mime = null;
        }
      }
      if (gen !== playGen) return;
      player = mime ? new MsePlayer(camera, mime) : new FilePlayer(camera);
      if (mime) {
        try {
          await player.open();
        } catch (e) {   // a SourceBuffer refused after all: one file at a time
          remember(`MSE: ${e}`);
          mseFailed.add(camera);
          player.close();
          player = new FilePlayer(camera);
        }
      }
      if (gen !== playGen) { player.close(); return; }
      if (state.player) state.player.close();   // one made meanwhile by a click before this one
      state.player = player;
    }
    if (!(await player.seek(t))) where.textContent = 'nothing recorded from there';
    draw();
  }

  const playheadMs = () => (state.player ? state.player.playheadMs() : 0);

  // the frame takes the picture's proportions
  video.addEventListener('loadedmetadata', () => {
    if (video.videoWidth > 0) video.parentElement.style.aspectRatio = `${video.videoWidth} / ${video.videoHeight}`;
  });
  // a recording MSE cannot play (a decode error closes the MediaSource): on one file at a time from there
  video.addEventListener('error', () => {
    state.error = `video: ${video.error ? video.error.message || video.error.code : 'error'}`;
    remember(state.error);
    const p = state.player;
    if (p instanceof MsePlayer && p.entries.length) {
      const t = p.playheadMs();
      mseFailed.add(p.camera);
      playAt(t).catch((e) => remember(`playback: ${e}`));
    }
  });
  video.addEventListener('seeking', () => { if (state.player) state.player.seeking(); });

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
    if (!state.player || !state.player.active() || video.readyState < 2) return;
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
      const text = document.createElementNS('http://www.w3.org/2000/svg', 'text');
      text.setAttribute('x', bx);
      text.setAttribute('y', Math.max(12, by - 3));
      text.textContent = `${track != null ? '#' + track + ' ' : ''}${name} ${Number(confidence).toFixed(2)}`;
      svg.append(r, text);
    }
    svg.dataset.frame = f.t;
  }

  function step(direction) {
    const t = state.player && state.player.active() ? playheadMs() : Date.now();
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
    playAt(from).catch((err) => remember(`playback: ${err}`));
  }

  // ---- the timeline's gestures: click plays, wheel zooms about the pointer, drag moves in time ----

  const fraction = (ev) => {
    const rect = canvas.getBoundingClientRect();
    return Math.min(1, Math.max(0, (ev.clientX - rect.left) / rect.width));
  };
  let drag = null;
  canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, end: state.end, width: canvas.getBoundingClientRect().width, moved: false };
    try { canvas.setPointerCapture(ev.pointerId); } catch (e) { /* a synthetic event's pointer: no capture */ }
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x;
    if (!drag.moved && Math.abs(dx) < 4) return;
    drag.moved = true;
    canvas.classList.add('dragging');
    changeView(state.span, drag.end - (dx / drag.width) * state.span, false);
  });
  canvas.addEventListener('pointerup', (ev) => {
    const was = drag;
    drag = null;
    canvas.classList.remove('dragging');
    if (!was || was.moved) return;
    const f = fraction(ev);
    const t = state.from + f * (state.to - state.from);
    const hit = state.events.find((e) => Math.abs(x(e.start) - f * canvas.width) < 3);
    if (hit) showEvent(hit);
    else playAt(t).catch((err) => remember(`playback: ${err}`));
  });
  canvas.addEventListener('pointercancel', () => { drag = null; canvas.classList.remove('dragging'); });
  canvas.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    const f = fraction(ev);
    const at = state.from + f * (state.to - state.from);
    const delta = ev.deltaMode === 1 ? ev.deltaY * 40 : ev.deltaY;   // lines or pixels
    const span = Math.min(MAX_SPAN, Math.max(MIN_SPAN, state.span * Math.exp(delta * 0.002)));
    // the time under the pointer stays under it; past the present the view follows it
    const end = at + (1 - f) * span;
    changeView(span, end, state.follow && end >= Date.now() - 1000);
  }, { passive: false });
  spanButtons.forEach((b) => b.addEventListener('click', () => {
    // the same end: a wider span reaches further back
    changeView(Number(b.dataset.span), state.end, state.follow);
  }));
  nowButton.addEventListener('click', () => changeView(state.span, Date.now(), true));

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
  // over gaps and on with the fetching: a stalled element sends no timeupdate, so a timer
  video.addEventListener('waiting', () => { if (state.player) state.player.tick(); });
  setInterval(() => { if (state.player) state.player.tick(); }, 250);

  // for people and tests: where playback is (wall-clock ms, 0 when nothing plays), what the player and the timeline
  // hold, and play an event by id
  window.reviewPlayhead = () => (state.player && state.player.active() && video.readyState >= 2 ? playheadMs() : 0);
  window.reviewState = () => ({ playhead: playheadMs(), frames: state.frames.length, framesFrom: state.framesFrom,
    framesTo: state.framesTo, firstFrame: state.frames.length ? state.frames[0].t : null, error: state.error || null,
    ...(state.player ? state.player.describe() : { mse: null, appended: 0 }),
    span: state.span, from: state.from, to: state.to, follow: state.follow, loaded: state.loaded, fetches: state.fetches,
    draws: state.draws, labels: state.labels, segments: state.segments.length, spans: state.spans ? state.spans.length : null, segmentsCut: state.segmentsCut,
    events: state.events.length, eventsTotal: state.eventsTotal, storedEvents: state.storedEvents || 0,
    note: note.textContent, log: state.log });
  window.reviewEvent = async (id) => {
    await refreshTimeline();
    const e = state.events.find((v) => v.id === id) || await json(`/api/events/${encodeURIComponent(id)}`);
    if (e) showEvent(e);
    return !!e;
  };
  window.reviewPlay = (t) => playAt(t);
  window.reviewUseMse = (on) => { useMse = !!on; };
  window.reviewKeepBehind = (seconds) => { keepBehindS = seconds; };
  window.reviewLimits = (segments, events) => { segmentLimit = segments; eventLimit = events; };

  refreshCameras();
  setInterval(refreshCameras, 10_000);
  showView();
  setInterval(() => {
    if (state.follow && Date.now() - state.lastFetch >= refreshEvery()) refreshTimeline().catch(() => {});
    else if (state.follow && (!state.player || video.paused)) draw();   // the view slides with the present
  }, 1000);
})();
