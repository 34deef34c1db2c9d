// The teaching page of `mmp serve` (docs/serve.md): an image and its cost map in a pan-and-zoom view, plans
// between clicked points, demonstrations drawn and taught to the model.  Plain JavaScript, no library.
// The server sends an overview of each picture (at most limits.max_picture_px on its long side) and, when
// zoomed in beyond it, the visible region at full resolution: never the whole raster.
'use strict';

const $ = (id) => document.getElementById(id);
const state = {
  session: null, image: null, info: null, revision: 0,
  view: { scale: 1, x: 0, y: 0 },
  pictures: { image: null, costs: null, imageDetail: null, costsDetail: null, parentCosts: null, parentDetail: null },
  range: null, legendRamp: null,
  // before | after: the parent's map left of the split, the taught model's right, both on the parent's scale
  compare: false,
  mode: 'plan', start: null, goal: null, plan: null, parentPlan: null, drawing: [], suggestions: [],
  excluded: {},  // image id -> boxes [x0, y0, x1, y1] (pixels) kept for checking: no suggestion falls in them
  busy: 0,
};

// --- requests: errors shown with the server's message; progress for anything slower than 0.3 s ---

class ApiError extends Error {}

async function request(path, options = {}) {
  let response;
  try {
    response = await fetch(path, options);
  } catch (e) {
    throw new ApiError('the server did not answer (is mmp serve still running?)');
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
    throw new ApiError(message);
  }
  return response;
}
const getJson = async (path) => (await request(path)).json();
const postJson = async (path, body) => (await request(path, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body || {}),
})).json();

function showError(e) {
  $('error-text').textContent = e instanceof ApiError ? e.message : `the page failed: ${e.message || e}`;
  $('error').hidden = false;
  if (!(e instanceof ApiError)) console.error(e);
}

// Runs task() with the progress bar shown (after 0.3 s) and its label counting seconds; errors shown.
async function busy(label, task) {
  state.busy += 1;
  const started = performance.now();
  const tick = () => {
    const s = (performance.now() - started) / 1000;
    if (s > 0.3) { $('progress').hidden = false; $('progress-text').textContent = `${label} ${s.toFixed(1)} s`; }
  };
  const timer = setInterval(tick, 100);
  updateButtons();
  try {
    return await task();
  } catch (e) {
    showError(e);
    return undefined;
  } finally {
    clearInterval(timer);
    state.busy -= 1;
    if (state.busy === 0) $('progress').hidden = true;
    updateButtons();
  }
}

// --- pictures ---

async function fetchPicture(path) {
  const response = await request(path);
  const region = response.headers.get('X-Region').split(',').map(Number);
  const range = (response.headers.get('X-Cost-Range') || '').split(',').map(Number);
  const revision = Number(response.headers.get('X-Revision'));
  const bitmap = await createImageBitmap(await response.blob());
  return { bitmap, region, range, revision };
}

const imageUrl = (what) => `/api/images/${state.image.id}/${what}`;

// The cost pictures' query: in the before | after view on the parent's colour scale.
const costsQuery = (query) => query + (state.compare ? '&scale=parent' : '');
const parentQuery = (query) => `${query}&model=parent&scale=parent`;

async function loadOverviews() {
  // the cost overview at most 1024 px a side: a 60 Mpx image's cells would make 8 MB of PNG; zooming in loads detail
  const [image, costs] = await Promise.all([fetchPicture(imageUrl('image.jpg')),
    fetchPicture(imageUrl('costs.png') + costsQuery('?max=1024'))]);
  state.pictures.image = image;
  setCosts(costs);
  state.pictures.imageDetail = null;
  state.pictures.costsDetail = null;
  await loadParentOverview();
}

// The parent's overview, once per image, when the before | after view is on.
async function loadParentOverview() {
  if (!state.compare || state.pictures.parentCosts) return;
  state.pictures.parentCosts = await fetchPicture(imageUrl('costs.png') + parentQuery('?max=1024'));
}

function setCosts(costs) {
  state.pictures.costs = costs;
  state.range = costs.range;
  drawLegend();
  draw();
}

async function refreshCosts() {
  setCosts(await fetchPicture(imageUrl('costs.png') + costsQuery('?max=1024')));
  state.pictures.costsDetail = null;
  await loadParentOverview();
  scheduleDetail(0);
}

async function setCompare(on) {
  state.compare = on;
  state.pictures.parentDetail = null;
  await busy(on ? 'Loading the parent\'s cost map' : 'Loading the cost map', async () => {
    await refreshCosts();
    if (state.start && state.goal) await plan();
  });
}

// When zoomed in beyond the overview, the visible region at full resolution (debounced).
let detailTimer = null;
function scheduleDetail(delay = 250) {
  clearTimeout(detailTimer);
  detailTimer = setTimeout(loadDetail, delay);
}

async function loadDetail() {
  const overview = state.pictures.image;
  if (!overview || !state.image) return;
  const overviewScale = overview.bitmap.width / state.image.width;  // overview px per image px
  if (state.view.scale <= overviewScale * 1.2) {
    state.pictures.imageDetail = state.pictures.costsDetail = state.pictures.parentDetail = null;
    draw();
    return;
  }
  const canvas = $('canvas');
  const [x0, y0] = imageOf(0, 0), [x1, y1] = imageOf(canvas.clientWidth, canvas.clientHeight);
  const pad = 0.15 * Math.max(x1 - x0, y1 - y0);
  const clamp = (v, hi) => Math.max(0, Math.min(hi, v));
  const region = [clamp(Math.floor(x0 - pad), state.image.width), clamp(Math.floor(y0 - pad), state.image.height),
    clamp(Math.ceil(x1 + pad), state.image.width), clamp(Math.ceil(y1 + pad), state.image.height)];
  if (region[2] - region[0] < 1 || region[3] - region[1] < 1) return;
  const max = Math.min(state.session.limits.max_picture_px,
    Math.ceil(Math.max(canvas.clientWidth, canvas.clientHeight) * 1.3 * (window.devicePixelRatio || 1)));
  const query = `?region=${region.join(',')}&max=${max}`;
  const id = state.image.id;
  try {
    const [image, costs, parent] = await Promise.all([fetchPicture(imageUrl('image.jpg') + query),
      fetchPicture(imageUrl('costs.png') + costsQuery(query)),
      state.compare ? fetchPicture(imageUrl('costs.png') + parentQuery(query)) : null]);
    if (!state.image || state.image.id !== id) return;
    state.pictures.imageDetail = image;
    state.pictures.costsDetail = costs.revision === state.revision ? costs : null;
    state.pictures.parentDetail = parent;
    draw();
  } catch (e) {
    showError(e);
  }
}

// --- the view: image pixels <-> canvas CSS pixels ---

const screenOf = (x, y) => [x * state.view.scale + state.view.x, y * state.view.scale + state.view.y];
const imageOf = (sx, sy) => [(sx - state.view.x) / state.view.scale, (sy - state.view.y) / state.view.scale];

function fitView() {
  const canvas = $('canvas');
  const s = Math.min(canvas.clientWidth / state.image.width, canvas.clientHeight / state.image.height) * 0.96;
  state.view = { scale: s, x: (canvas.clientWidth - state.image.width * s) / 2, y: (canvas.clientHeight - state.image.height * s) / 2 };
}

function drawPicture(ctx, picture, smooth) {
  if (!picture) return;
  const [x0, y0, x1, y1] = picture.region;
  const [sx, sy] = screenOf(x0, y0);
  ctx.imageSmoothingEnabled = smooth;
  ctx.drawImage(picture.bitmap, sx, sy, (x1 - x0) * state.view.scale, (y1 - y0) * state.view.scale);
}

function drawPath(ctx, points, colour, width, dashed) {
  if (!points || points.length < 1) return;
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.lineJoin = ctx.lineCap = 'round';
  if (dashed) ctx.setLineDash([6, 4]);
  ctx.beginPath();
  points.forEach(([x, y], i) => { const [sx, sy] = screenOf(x, y); if (i === 0) ctx.moveTo(sx, sy); else ctx.lineTo(sx, sy); });
  ctx.shadowColor = 'rgba(0,0,0,0.7)';
  ctx.shadowBlur = 3;
  ctx.stroke();
  ctx.restore();
}

function drawMark(ctx, point, colour, label) {
  if (!point) return;
  const [sx, sy] = screenOf(point[0], point[1]);
  ctx.save();
  ctx.fillStyle = colour;
  ctx.strokeStyle = '#000';
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(sx, sy, 7, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
  ctx.fillStyle = '#fff';
  ctx.font = 'bold 12px system-ui';
  ctx.fillText(label, sx + 10, sy - 8);
  ctx.restore();
}

function draw() {
  const canvas = $('canvas');
  const ratio = window.devicePixelRatio || 1;
  if (canvas.width !== Math.round(canvas.clientWidth * ratio) || canvas.height !== Math.round(canvas.clientHeight * ratio)) {
    canvas.width = Math.round(canvas.clientWidth * ratio);
    canvas.height = Math.round(canvas.clientHeight * ratio);
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, canvas.clientWidth, canvas.clientHeight);
  if (!state.image) return;
  drawPicture(ctx, state.pictures.image, true);
  drawPicture(ctx, state.pictures.imageDetail, true);
  ctx.globalAlpha = Number($('opacity').value) / 100;
  const split = canvas.clientWidth / 2;
  const clipped = (x0, x1, pictures) => {
    ctx.save();
    ctx.beginPath();
    ctx.rect(x0, 0, x1 - x0, canvas.clientHeight);
    ctx.clip();
    for (const picture of pictures) drawPicture(ctx, picture, false);
    ctx.restore();
  };
  if (state.compare && state.pictures.parentCosts) {
    clipped(0, split, [state.pictures.parentCosts, state.pictures.parentDetail]);
    clipped(split, canvas.clientWidth, [state.pictures.costs, state.pictures.costsDetail]);
  } else {
    drawPicture(ctx, state.pictures.costs, false);
    drawPicture(ctx, state.pictures.costsDetail, false);
  }
  ctx.globalAlpha = 1;
  if (state.compare && state.pictures.parentCosts) drawSplit(ctx, split, canvas.clientHeight);
  for (const d of state.session.demonstrations) {
    if (d.image === state.image.id) drawPath(ctx, d.points, 'rgba(0, 230, 255, 0.85)', 2.5, true);
  }
  for (const m of state.session.marks || []) {
    if (m.image === state.image.id) drawPath(ctx, m.points, kMarkColour[m.kind], 4, true);
  }
  for (const box of state.excluded[state.image.id] || []) drawBox(ctx, box);
  if (state.dragBox) drawBox(ctx, state.dragBox);
  for (const s of state.suggestions) drawPath(ctx, [s.start, s.goal], 'rgba(255, 255, 255, 0.8)', 1.5, true);
  if (state.compare && state.parentPlan) drawPath(ctx, state.parentPlan.points, '#ffb000', 2.5, true);
  if (state.plan) {
    if (state.plan.ompl) drawPath(ctx, state.plan.ompl.points, '#7CFC00', 2.5, false);
    drawPath(ctx, state.plan.points, '#ff3b3b', 3, false);
  }
  const ink = kMarkColour[state.mode] || '#00e5ff';
  drawPath(ctx, state.drawing, ink, 3.5, false);
  for (const p of state.drawing) { const [sx, sy] = screenOf(p[0], p[1]); ctx.fillStyle = ink; ctx.fillRect(sx - 2, sy - 2, 4, 4); }
  drawMark(ctx, state.start, '#3ddc84', 'start');
  drawMark(ctx, state.goal, '#ff6b6b', 'goal');
}

// A box kept for checking: dashed white over a dimmed inside, named.
function drawBox(ctx, box) {
  const [x0, y0] = screenOf(box[0], box[1]), [x1, y1] = screenOf(box[2], box[3]);
  ctx.save();
  ctx.fillStyle = 'rgba(0, 0, 0, 0.25)';
  ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
  ctx.strokeStyle = '#fff';
  ctx.setLineDash([6, 4]);
  ctx.lineWidth = 1.5;
  ctx.strokeRect(x0, y0, x1 - x0, y1 - y0);
  ctx.fillStyle = '#fff';
  ctx.font = '12px system-ui, sans-serif';
  ctx.fillText('kept for checking', x0 + 4, y0 + 14);
  ctx.restore();
}

// The before | after split: a line down the middle, each side named.
function drawSplit(ctx, x, height) {
  ctx.save();
  ctx.strokeStyle = '#fff';
  ctx.lineWidth = 2;
  ctx.shadowColor = 'rgba(0,0,0,0.8)';
  ctx.shadowBlur = 3;
  ctx.beginPath();
  ctx.moveTo(x, 0);
  ctx.lineTo(x, height);
  ctx.stroke();
  ctx.font = 'bold 13px system-ui';
  ctx.fillStyle = '#fff';
  ctx.textAlign = 'right';
  ctx.fillText('before: the parent', x - 8, 18);
  ctx.textAlign = 'left';
  ctx.fillText('after: taught', x + 8, 18);
  ctx.restore();
}

// --- the legend: the colour ramp over log cost, round ticks ---

function drawLegend() {
  const canvas = $('legend');
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!state.range || !state.legendRamp) return;
  const [low, high] = state.range;
  const left = 8, width = canvas.width - 16;
  ctx.imageSmoothingEnabled = true;
  ctx.drawImage(state.legendRamp, left, 2, width, 16);
  ctx.strokeStyle = '#888';
  ctx.strokeRect(left, 2, width, 16);
  ctx.fillStyle = '#333';
  ctx.font = '11px system-ui';
  const span = Math.log(high) - Math.log(low);
  const at = (v) => left + (span > 0 ? (Math.log(v) - Math.log(low)) / span : 0) * width;
  const ticks = [];
  for (let e = Math.floor(Math.log10(low)); e <= Math.ceil(Math.log10(high)); e += 1) {
    for (const m of [1, 2, 5]) { const v = m * 10 ** e; if (v >= low && v <= high) ticks.push(v); }
  }
  const shown = ticks.length > 6 ? ticks.filter((v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9) : ticks;
  let lastX = -100;
  for (const v of shown) {
    const x = at(v);
    ctx.fillRect(x, 18, 1, 4);
    const text = formatCost(v);
    const w = ctx.measureText(text).width;
    if (x - w / 2 > lastX + 4) { ctx.fillText(text, Math.min(canvas.width - w, Math.max(0, x - w / 2)), 33); lastX = x + w / 2; }
  }
  ctx.fillStyle = '#5b6577';
  ctx.fillText(`cost per cell, log scale: ${formatCost(low)} to ${formatCost(high)}`, left, 47);
}

function formatCost(v) {
  if (v === 0) return '0';
  if (Math.abs(v) >= 1e4 || Math.abs(v) < 1e-2) return v.toExponential(1).replace('e+', 'e');
  return Number(v.toPrecision(3)).toString();
}

// --- session, image, hover ---

async function loadSession() {
  state.session = await getJson('/api/session');
  state.revision = state.session.revision;
  const select = $('image');
  select.innerHTML = '';
  for (const image of state.session.images) {
    const option = document.createElement('option');
    option.value = image.id;
    option.textContent = `${image.name} (${image.width} x ${image.height})`;
    select.appendChild(option);
  }
  $('model-name').textContent = `${state.session.model.path} (${state.session.model.kind})`;
  const table = $('model-summary');
  table.innerHTML = '';
  for (const [key, value] of state.session.model.summary) {
    const row = table.insertRow();
    row.insertCell().textContent = key;
    row.insertCell().textContent = value.length > 400 ? value.slice(0, 400) + '...' : value;
  }
  $('save').title = state.session.out ? `writes ${state.session.out} (atomically)` : 'saving is off (no --out)';
  if (!state.session.teaching) $('teach-result').textContent = state.session.teaching_refused;
  renderDemonstrations();
}

async function selectImage(id) {
  state.image = state.session.images.find((i) => i.id === id);
  state.start = state.goal = state.plan = null;
  state.drawing = [];
  state.suggestions = [];
  state.pictures = { image: null, costs: null, imageDetail: null, costsDetail: null, parentCosts: null, parentDetail: null };
  state.parentPlan = null;
  $('plan-result').textContent = '';
  draw();
  await busy(`Loading ${state.image.name}`, async () => {
    state.info = await getJson(imageUrl('info'));
    const f = state.info.familiarity;
    const fam = $('familiarity');
    fam.textContent = `Familiarity: ${f.text}`;
    fam.className = f.warns ? 'note warn' : 'note';
    await loadOverviews();
    fitView();
    draw();
  });
  renderDemonstrations();
}

let hoverPending = false, hoverNext = null;
async function hover(x, y) {
  hoverNext = [x, y];
  if (hoverPending) return;
  hoverPending = true;
  try {
    while (hoverNext) {
      const [hx, hy] = hoverNext;
      hoverNext = null;
      if (!state.image || !state.info || hx < 0 || hy < 0 || hx >= state.info.cols * state.info.cell_size ||
          hy >= state.info.rows * state.info.cell_size) { $('hover').textContent = 'outside the cost map'; continue; }
      const c = await getJson(`${imageUrl('cell')}?x=${hx.toFixed(1)}&y=${hy.toFixed(1)}`);
      let text = `pixel (${hx.toFixed(0)}, ${hy.toFixed(0)})  cell row ${c.row} col ${c.col}\n`;
      text += c.cost !== undefined ? `cost ${formatCost(c.cost)}` : c.state;
      if (c.world) text += `\nworld (${c.world[0].toFixed(2)}, ${c.world[1].toFixed(2)})`;
      if (c.class_scores) {
        text += '\nclass scores (scaled margin):';
        for (const [name, v] of Object.entries(c.class_scores)) text += `\n  ${name} ${v.toFixed(2)}`;
      }
      $('hover').textContent = text;
    }
  } catch (e) {
    $('hover').textContent = e.message;
  } finally {
    hoverPending = false;
  }
}

// --- planning and teaching ---

const cellCentre = ([x, y]) => {
  const k = state.info.cell_size;
  return [(Math.floor(x / k) + 0.5) * k, (Math.floor(y / k) + 0.5) * k];
};
const insideCells = ([x, y]) => state.info && x >= 0 && y >= 0 && x < state.info.cols * state.info.cell_size &&
  y < state.info.rows * state.info.cell_size;

async function plan() {
  if (!state.start || !state.goal) return;
  const planner = $('planner').value;
  await busy(planner === 'astar' ? 'Planning' : `Planning (A* and ${planner}, 1 s budget)`, async () => {
    const result = await postJson(imageUrl('plan'), { start: state.start, goal: state.goal, planner, budget: 1.0 });
    state.plan = result;
    const underParent = (r) => (r.parent_cost === null ? 'impassable' : formatCost(r.parent_cost));
    let text = `A* plan: cost ${formatCost(result.cost)}, ${result.cells} cells (${(result.seconds * 1000).toFixed(0)} ms)`;
    if (state.revision > 0) text += `; ${underParent(result)} under the parent's costs`;
    if (result.ompl) text += `\n${result.ompl.planner}: cost ${formatCost(result.ompl.cost)} = ${result.ompl.ratio.toFixed(3)} x A*`;
    state.parentPlan = null;
    if (state.compare) {
      state.parentPlan = await postJson(imageUrl('plan'), { start: state.start, goal: state.goal, model: 'parent' });
      text += `\nthe parent's plan (dashed orange): cost ${formatCost(state.parentPlan.cost)} under the parent's costs, ` +
        `${state.parentPlan.cells} cells`;
    }
    $('plan-result').textContent = text;
    draw();
  });
}

async function teach() {
  if (state.drawing.length < 2) { showError(new ApiError('draw a demonstration first: two points or more')); return; }
  await busy('Teaching', async () => {
    const result = await postJson(imageUrl('teach'), {
      points: state.drawing, revision: state.revision, avoid: state.mode === 'avoid', prefer: state.mode === 'prefer',
    });
    await afterTeaching(result, 'taught');
    state.drawing = [];
    draw();
  });
}

async function undo() {
  await busy('Undoing the last teaching', async () => {
    await afterTeaching(await postJson('/api/undo', { revision: state.revision }), 'undone');
  });
}

async function afterTeaching(result, what) {
  state.revision = result.revision;
  state.session.demonstrations = result.demonstrations;
  state.session.marks = result.marks;
  const s = result.step;
  const marks = (kind) => (result.marks || []).filter((m) => m.kind === kind).length;
  const counted = ['avoid', 'prefer'].filter((kind) => marks(kind) > 0).map((kind) => ` and ${marks(kind)} ${kind} mark(s)`).join('');
  $('teach-result').textContent = `${what} in ${s.seconds.toFixed(2)} s: now ${s.demonstrations} demonstration(s)${counted}\n` +
    `prediction loss per cell of the taught paths (lower: plans closer to them): parent ${s.loss_before.toFixed(3)}, adapted ${s.loss_after.toFixed(3)}` + (s.converged ? '' : `\n${s.message}`);
  $('teach-warnings').textContent = (s.warnings || []).map((w) => `warning: ${w}`).join('\n');
  renderDemonstrations();
  await refreshCosts();
  if (state.start && state.goal) await plan();
}

// The part of the image in view, as the suggest request's region ({} when the whole image is in view).
function visibleRegion() {
  const canvas = $('canvas');
  const [x0, y0] = imageOf(0, 0), [x1, y1] = imageOf(canvas.clientWidth, canvas.clientHeight);
  const r = [Math.max(0, x0), Math.max(0, y0), Math.min(state.image.width, x1), Math.min(state.image.height, y1)];
  const whole = r[0] <= 0 && r[1] <= 0 && r[2] >= state.image.width && r[3] >= state.image.height;
  return whole || r[2] <= r[0] || r[3] <= r[1] ? {} : { region: r };
}

async function suggest() {
  await busy('Valuing candidate pairs', async () => {
    const boxes = state.excluded[state.image.id] || [];
    const result = await postJson(imageUrl('suggest'), { n: 3, ...visibleRegion(), ...(boxes.length > 0 ? { exclude: boxes } : {}) });
    state.suggestions = result.pairs;
    if (result.pairs.length > 0) {
      state.start = result.pairs[0].start;
      state.goal = result.pairs[0].goal;
      $('teach-result').textContent = `suggested ${result.pairs.length} pair(s) (dashed white); the most valuable is set as ` +
        `start and goal (its plans stray ${result.pairs[0].value_cells.toFixed(1)} cells): draw how you would go`;
      await plan();
    }
    draw();
  });
}

function renderDemonstrations() {
  const list = $('demonstrations');
  list.innerHTML = '';
  for (const d of state.session.demonstrations) {
    const item = document.createElement('li');
    item.textContent = `${d.name}: ${d.image_name}, ${d.cells} cells`;
    item.title = 'click: show its ends as start and goal; double-click: rename it (the name goes into the CSV and the model)';
    item.addEventListener('dblclick', () => renameDemonstration(d));
    item.addEventListener('click', async () => {
      if (!state.image || d.image !== state.image.id) { $('image').value = d.image; await selectImage(d.image); }
      state.start = d.points[0];
      state.goal = d.points[d.points.length - 1];
      await plan();
    });
    list.appendChild(item);
  }
  for (const m of state.session.marks || []) {
    const item = document.createElement('li');
    item.className = m.kind;
    item.textContent = `${m.kind} mark on ${m.image_name}: ${m.cells} cells ${m.kind === 'avoid' ? 'kept dear' : 'that may be cheap'}`;
    list.appendChild(item);
  }
  updateButtons();
}

async function renameDemonstration(d) {
  const name = window.prompt(`Name of ${d.name}`, d.name);
  if (name === null || name === d.name) return;
  await busy('Renaming', async () => {
    const result = await postJson('/api/rename', { index: d.index, name, revision: state.revision });
    state.session.demonstrations = result.demonstrations;
    renderDemonstrations();
  });
}

function updateButtons() {
  const teaching = state.session && state.session.teaching;
  const idle = state.busy === 0;
  $('teach').disabled = !teaching || !idle || state.drawing.length < 2;
  $('undo').disabled = !teaching || !idle || !state.session ||
    state.session.demonstrations.length + (state.session.marks || []).length === 0;
  $('suggest').disabled = !teaching || !idle || !state.image;
  $('clear').disabled = state.drawing.length === 0;
  $('clear-boxes').disabled = !state.image || !(state.excluded[state.image.id] || []).length;
  $('save').disabled = !idle || !state.session || !state.session.out;
}

// --- saving and downloads ---

async function download(path, label) {
  await busy(label, async () => {
    const response = await request(path);
    const name = (response.headers.get('Content-Disposition') || '').match(/filename="([^"]+)"/);
    const url = URL.createObjectURL(await response.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = name ? name[1] : 'download';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    $('save-result').textContent = `downloaded ${a.download}`;
  });
}

function nav2Query() {
  const lethal = $('nav2-lethal').value, value = $('nav2-value').value;
  let q = `?scale=${$('nav2-scale').value}&origin=${$('nav2-origin').value}`;
  if (lethal === 'quantile') q += `&lethal_quantile=${encodeURIComponent(value)}`;
  if (lethal === 'above') q += `&lethal_above=${encodeURIComponent(value)}`;
  return q;
}

// --- mouse: pan, zoom, clicks ---

// Drawing a demonstration, or a mark: avoid (a stroke over ground that must stay dear) or prefer
// (over ground that may be cheap).
const drawingMode = () => state.mode === 'draw' || state.mode === 'avoid' || state.mode === 'prefer';
const kMarkColour = { avoid: 'rgba(255, 64, 255, 0.9)', prefer: 'rgba(64, 255, 128, 0.9)' };

// The box being dragged in exclude mode, clamped to the image, [x0, y0, x1, y1] in pixels.
function boxOf(a, b) {
  const clamp = (v, hi) => Math.min(hi, Math.max(0, v));
  return [clamp(Math.min(a[0], b[0]), state.image.width), clamp(Math.min(a[1], b[1]), state.image.height),
    clamp(Math.max(a[0], b[0]), state.image.width), clamp(Math.max(a[1], b[1]), state.image.height)];
}

function setupCanvas() {
  const canvas = $('canvas');
  let press = null;
  canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  canvas.addEventListener('mousedown', (e) => {
    const pan = e.button !== 0 || e.shiftKey || state.mode === 'plan';
    press = { x: e.offsetX, y: e.offsetY, view: { ...state.view }, pan, moved: false };
    if (!pan && state.mode === 'exclude' && state.image) press.box = imageOf(e.offsetX, e.offsetY);
    if (!pan && drawingMode() && state.image) {
      const p = imageOf(e.offsetX, e.offsetY);
      if (insideCells(p)) { state.drawing.push(cellCentre(p)); draw(); updateButtons(); }
      press.drawn = true;
    }
  });
  window.addEventListener('mouseup', (e) => {
    if (!press) return;
    const p = press;
    press = null;
    if (p.pan && p.moved) { scheduleDetail(); return; }
    if (p.box) {
      const box = state.dragBox;
      state.dragBox = null;
      if (box && box[2] > box[0] && box[3] > box[1]) (state.excluded[state.image.id] ||= []).push(box);
      draw();
      updateButtons();
      return;
    }
    if (p.pan && e.button === 0 && !e.shiftKey && state.mode === 'plan' && e.target === canvas && state.image) {
      const point = imageOf(e.offsetX, e.offsetY);
      if (!insideCells(point)) return;
      if (!state.start || state.goal) { state.start = cellCentre(point); state.goal = null; state.plan = null; $('plan-result').textContent = 'click the goal'; } else { state.goal = cellCentre(point); plan(); }
      draw();
    }
  });
  canvas.addEventListener('mousemove', (e) => {
    const point = imageOf(e.offsetX, e.offsetY);
    if (state.image) hover(point[0], point[1]);
    if (!press) return;
    if (Math.hypot(e.offsetX - press.x, e.offsetY - press.y) > 3) press.moved = true;
    if (press.box) {
      state.dragBox = boxOf(press.box, point);
      draw();
    } else if (press.pan) {
      state.view.x = press.view.x + e.offsetX - press.x;
      state.view.y = press.view.y + e.offsetY - press.y;
      draw();
    } else if (press.drawn && press.moved && insideCells(point)) {  // free-hand: a point per cell entered
      const c = cellCentre(point), last = state.drawing[state.drawing.length - 1];
      if (!last || last[0] !== c[0] || last[1] !== c[1]) { state.drawing.push(c); draw(); updateButtons(); }
    }
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    const factor = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
    const scale = Math.min(64, Math.max(0.01, state.view.scale * factor));
    const [x, y] = imageOf(e.offsetX, e.offsetY);
    state.view = { scale, x: e.offsetX - x * scale, y: e.offsetY - y * scale };
    draw();
    scheduleDetail();
  }, { passive: false });
  window.addEventListener('resize', () => { draw(); scheduleDetail(); });
  window.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { state.drawing = []; draw(); updateButtons(); }
  });
}

async function main() {
  setupCanvas();
  $('error-close').addEventListener('click', () => { $('error').hidden = true; });
  $('opacity').addEventListener('input', () => { $('opacity-value').textContent = `${$('opacity').value} %`; draw(); });
  $('compare').addEventListener('change', () => setCompare($('compare').checked));
  for (const radio of document.querySelectorAll('input[name=mode]')) {
    radio.addEventListener('change', () => {
      state.mode = radio.value;
      $('canvas').style.cursor = drawingMode() ? 'copy' : 'crosshair';
      $('teach').textContent = { avoid: 'Teach avoid mark', prefer: 'Teach prefer mark' }[state.mode] || 'Teach';
    });
  }
  $('planner').addEventListener('change', plan);
  $('image').addEventListener('change', () => selectImage(Number($('image').value)));
  $('teach').addEventListener('click', teach);
  $('undo').addEventListener('click', undo);
  $('suggest').addEventListener('click', suggest);
  $('clear').addEventListener('click', () => { state.drawing = []; draw(); updateButtons(); });
  $('save').addEventListener('click', () => busy('Saving', async () => {
    const r = await postJson('/api/save', {});
    $('save-result').textContent = `saved ${r.saved} (${r.demonstrations} demonstration(s) taught); mmp info ${r.saved} shows them`;
  }));
  $('dl-model').addEventListener('click', () => download('/api/model.mmp', 'Preparing the model'));
  $('dl-csv').addEventListener('click', () => download(imageUrl('demonstrations.csv'), 'Preparing the CSV'));
  $('dl-avoid').addEventListener('click', () => download(imageUrl('avoid.csv'), 'Preparing the CSV'));
  $('dl-prefer').addEventListener('click', () => download(imageUrl('prefer.csv'), 'Preparing the CSV'));
  $('clear-boxes').addEventListener('click', () => { if (state.image) delete state.excluded[state.image.id]; draw(); updateButtons(); });
  $('dl-tif').addEventListener('click', () => download(imageUrl('costmap.tif'), 'Writing the GeoTIFF'));
  $('dl-nav2').addEventListener('click', () => download(imageUrl('nav2.tar') + nav2Query(), 'Writing the Nav2 map'));
  state.legendRamp = await createImageBitmap(await (await request('/api/legend.png')).blob()).catch(() => null);
  await busy('Loading the session', loadSession);
  if (state.session && state.session.images.length > 0) await selectImage(state.session.images[0].id);
}

// For the browser test and the curious: the page's state and a digest of the cost overlay's pixels.
window.mmp = {
  state, screenOf, imageOf, fitView,
  overlayDigest(which = 'costs') {
    const p = state.pictures[which];
    if (!p) return null;
    const c = document.createElement('canvas');
    c.width = p.bitmap.width;
    c.height = p.bitmap.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(p.bitmap, 0, 0);
    const data = ctx.getImageData(0, 0, c.width, c.height).data;
    let h = 0;
    for (let i = 0; i < data.length; i += 1) h = (h * 31 + data[i]) >>> 0;
    return `${c.width}x${c.height}:${h}`;
  },
  idle: () => state.busy === 0 && !hoverPending,
};

main().catch(showError);
