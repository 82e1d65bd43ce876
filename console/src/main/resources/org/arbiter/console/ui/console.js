// Arbiter console page: plain JavaScript, no build step. Data from /api/*, live updates over
// Server-Sent Events (/api/events). Everything shown is put in with textContent, never as HTML.
'use strict';

const S = { session: null, cluster: null, allocation: {}, overrides: [], decisions: [], latest: {}, charts: {},
            statsCount: 0, source: null, refreshTimer: null, reconnectTimer: null, reconnectDelay: 0,
            history: [], plotted: {}, gateway: 'all', reasons: [] };
const MAX_POINTS = 360;
const MAX_HISTORY = 4000;      // raw reports kept to redraw the charts for another gateway selection
const MAX_DECISIONS = 300;     // decisions kept to fold into at most DECISION_ROWS rows
const DECISION_ROWS = 12;
const COLORS = ['#2f6fdf', '#e0692b', '#1f9d55', '#9b51e0', '#d64545', '#128a9b', '#b58b00', '#6b7385'];
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null) e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(c == null ? '' : String(c)));
  return e;
}
function fmt(x, digits = 2) {
  if (x === null || x === undefined || x === '' || Number.isNaN(Number(x))) return '—';
  const n = Number(x);
  return Math.abs(n) >= 1000 ? n.toFixed(0) : n.toFixed(digits);
}
function time(t) { return t ? new Date(t).toLocaleTimeString([], { hour12: false }) : '—'; }
function ago(t) {
  if (!t) return 'never';
  const s = Math.max(0, (Date.now() - new Date(t).getTime()) / 1000);
  return s < 90 ? s.toFixed(0) + ' s ago' : (s / 60).toFixed(0) + ' min ago';
}
function fill(tbody, rows) { tbody.replaceChildren(...rows); }

async function api(method, path, body) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && S.session && S.session.csrf) headers['X-CSRF-Token'] = S.session.csrf;
  const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
                                credentials: 'same-origin' });
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
  if (r.status === 401 && path !== '/api/login') showLogin('Please log in.');
  return { status: r.status, data };
}

// ---- session ---------------------------------------------------------------------------------

async function boot() {
  $('login-form').addEventListener('submit', login);
  $('logout').addEventListener('click', logout);
  $('login-open').addEventListener('click', () => showLogin(''));
  $('override-form').addEventListener('submit', pin);
  $('ov-kind').addEventListener('change', showFields);
  $('chart-gateway').addEventListener('change', () => { S.gateway = $('chart-gateway').value; redraw(); });
  const r = await api('GET', '/api/session');
  S.session = r.data && r.data.user ? r.data : null;
  if (S.session || (r.data && r.data.publicRead)) start(); else showLogin('');
}

function showLogin(message) {
  $('app').hidden = true;
  $('login').hidden = false;
  $('login-message').textContent = message;
  $('who').textContent = '';
  $('logout').hidden = true;
  $('login-open').hidden = true;
  if (S.source) { S.source.close(); S.source = null; }
  clearTimeout(S.reconnectTimer);
}

async function login(ev) {
  ev.preventDefault();
  $('login-message').textContent = 'checking…';
  const r = await api('POST', '/api/login', { user: $('login-user').value, password: $('login-password').value });
  if (r.status !== 200) { $('login-message').textContent = (r.data && r.data.error) || ('error ' + r.status); return; }
  $('login-password').value = '';
  S.session = r.data;
  start();
}

async function logout() {
  await api('POST', '/api/logout', {});
  S.session = null;
  showLogin('Logged out.');
}

// ---- loading ---------------------------------------------------------------------------------

async function start() {
  $('login').hidden = true;
  $('app').hidden = false;
  $('who').textContent = S.session ? S.session.user + ' (' + S.session.role + ')' : 'public read';
  $('logout').hidden = !S.session;
  $('login-open').hidden = !!S.session;   // public read: the way to log in and write
  $('override-form').hidden = !(S.session && S.session.role === 'admin');
  if (!S.charts.rt) makeCharts();
  await loadAll();
  connect();
  setInterval(renderGateways, 2000);
}

async function loadAll() {
  const [cluster, allocation, overrides, decisions, stats, config] = await Promise.all([
    api('GET', '/api/cluster'), api('GET', '/api/allocation'), api('GET', '/api/overrides'),
    api('GET', '/api/decisions?limit=' + MAX_DECISIONS), api('GET', '/api/stats'), api('GET', '/api/config')]);
  if (cluster.status !== 200) return;
  S.cluster = cluster.data;
  S.allocation = allocation.data || {};
  S.overrides = (overrides.data && overrides.data.overrides) || [];
  S.pinStatus = (overrides.data && overrides.data.status) || {};
  S.decisions = (decisions.data && decisions.data.decisions) || [];
  S.latest = {};
  S.history = [];
  for (const p of (stats.data && stats.data.stats) || []) addStats(p);
  redraw();
  if (config.status === 200) $('config').textContent = config.data.yaml;
  renderAll();
}

async function refreshCluster() {
  const [cluster, overrides] = await Promise.all([api('GET', '/api/cluster'), api('GET', '/api/overrides')]);
  if (cluster.status === 200) S.cluster = cluster.data;
  if (overrides.status === 200) { S.overrides = overrides.data.overrides; S.pinStatus = overrides.data.status || {}; }
  renderAll();
}
function refreshSoon() {
  clearTimeout(S.refreshTimer);
  S.refreshTimer = setTimeout(refreshCluster, 300);
}

// The browser reconnects a dropped stream by itself, but not one refused with an error status (a
// 503 when the console has too many streams open): that one is retried here, backing off from 5 s
// to 60 s with jitter.
function connect() {
  if (S.source) S.source.close();
  clearTimeout(S.reconnectTimer);
  const es = new EventSource('/api/events');
  S.source = es;
  let dropped = false;
  es.onopen = () => { setLive(true); S.reconnectDelay = 0; if (dropped) { dropped = false; loadAll(); } };
  es.onerror = () => {
    setLive(false); dropped = true;
    if (es.readyState === EventSource.CLOSED && S.source === es) {
      S.reconnectDelay = Math.min(60000, S.reconnectDelay ? S.reconnectDelay * 2 : 5000);
      S.reconnectTimer = setTimeout(() => { if (S.source === es) { connect(); loadAll(); } },
                                    S.reconnectDelay * (0.75 + Math.random() / 2));
    }
  };
  es.addEventListener('stats', e => { addStats(JSON.parse(e.data)); paintSoon(); });
  es.addEventListener('allocation', e => {
    const m = JSON.parse(e.data);
    if (m.allocation) S.allocation[m.gateway] = m.allocation; else delete S.allocation[m.gateway];
    renderMatrices(); refreshSoon();
  });
  es.addEventListener('decision', e => {
    S.decisions.unshift(JSON.parse(e.data));
    S.decisions.length = Math.min(S.decisions.length, MAX_DECISIONS);
    plotPrediction(S.decisions[0]);
    S.charts.rt.update('none');
    renderDecisions(); refreshSoon();
  });
  es.addEventListener('power', refreshSoon);
  es.addEventListener('override', refreshSoon);
}
function setLive(on) {
  $('live-dot').className = 'dot ' + (on ? 'on' : 'off');
  $('live-text').textContent = on ? 'live' : 'reconnecting…';
}

// ---- charts ----------------------------------------------------------------------------------

function classNames() { return S.cluster ? S.cluster.classes.map(c => c.name) : []; }
function configuredGateway(id) { return !!S.cluster && S.cluster.gateways.some(g => g.id === id && !g.unknown); }
function configuredGateways() { return S.cluster ? S.cluster.gateways.filter(g => !g.unknown) : []; }
function configuredServers() { return S.cluster ? S.cluster.servers.filter(s => !s.unknown) : []; }
function color(i) { return COLORS[i % COLORS.length]; }

function makeCharts() {
  const base = (yTitle) => ({
    type: 'line',
    data: { datasets: [] },
    options: {
      animation: false, parsing: false, normalized: true, maintainAspectRatio: false, spanGaps: true,
      elements: { point: { radius: 0 }, line: { borderWidth: 1.8, tension: 0.2 } },
      interaction: { mode: 'nearest', intersect: false },
      scales: {
        x: { type: 'linear', ticks: { maxTicksLimit: 6, callback: v => time(v) } },
        y: { title: { display: false, text: yTitle }, ticks: { maxTicksLimit: 6 } },
      },
      plugins: { legend: { position: 'bottom', labels: { boxWidth: 12, font: { size: 11 } } },
                 tooltip: { callbacks: { title: items => items.length ? time(items[0].parsed.x) : '' } } },
    },
  });
  S.charts.rt = new Chart($('chart-rt'), base('s'));
  // one legend entry per class: its p95 (dotted) and target (dashed) share its colour, as the title says
  S.charts.rt.options.plugins.legend.labels.filter = item => !/ (p95|target|predicted)$/.test(item.text);
  S.charts.x = new Chart($('chart-x'), base('req/s'));
  S.charts.q = new Chart($('chart-q'), base('requests'));
  S.charts.u = new Chart($('chart-u'), base('utility'));
  S.charts.rej = new Chart($('chart-rej'), base('rejections/s'));
  S.charts.loss = new Chart($('chart-loss'), base('% of offered yield'));
}

function dataset(chart, label, i, dashed) {
  let d = chart.data.datasets.find(x => x.label === label);
  if (!d) {
    d = { label, data: [], borderColor: color(i), backgroundColor: color(i),
          borderDash: dashed === 'dotted' ? [2, 3] : dashed === 'dashdot' ? [7, 3, 1, 3] : dashed ? [5, 4] : [] };
    if (dashed) d.borderWidth = 1;
    chart.data.datasets.push(d);
  }
  return d;
}
function push(d, x, y) {
  if (y === null || y === undefined || !Number.isFinite(y)) return;
  const last = d.data[d.data.length - 1];
  if (last && last.x > x) return;
  d.data.push({ x, y });
  if (d.data.length > MAX_POINTS) d.data.splice(0, d.data.length - MAX_POINTS);
}

// One report per gateway arrives at a time; per class we plot the figures over the latest report
// of every gateway the selector shows (all, or one): throughput, queues and rejections summed,
// mean response time and utility weighted by throughput, yield lost as LossPercent of the summed offered and
// realised yield. The p95 of several gateways is the
// highest gateway's p95 — an upper bound of the pooled p95, which the reports cannot give exactly.
function addStats(p) {
  S.latest[p.gateway] = p;
  S.history.push(p);
  if (S.history.length > MAX_HISTORY) S.history.splice(0, S.history.length - MAX_HISTORY);
  S.statsCount++;
  $('stats-count').textContent = S.statsCount;
  $('last-stats').textContent = time(p.at) + ' from ' + p.gateway;
  plot(p);
}

// Reports arrive one per gateway per statistics window (a hundred gateways at a 5 s window: twenty a
// second); the charts and the gateway table are repainted at most every PAINT_MS, not per report,
// so that the page's cost does not grow with the number of gateways (a busy machine's browser
// otherwise spent its time repainting and answered nothing else).
const PAINT_MS = 250;
function paintSoon() {
  if (S.paintTimer) return;
  S.paintTimer = setTimeout(() => {
    S.paintTimer = null;
    for (const ch of Object.values(S.charts)) ch.update('none');
    renderGateways();
  }, PAINT_MS);
}

// Clears the charts and replays the kept reports for the gateway selection.
function redraw() {
  for (const c of Object.values(S.charts)) c.data.datasets = [];
  S.plotted = {};
  for (const p of S.history) plot(p);
  for (let k = S.decisions.length - 1; k >= 0; k--) plotPrediction(S.decisions[k]);   // oldest first
  for (const c of Object.values(S.charts)) c.update('none');
}

// The GRM's prediction (003 eq. 9 with its flow model) of each class's mean response time for the
// weights a decision chose, over the busy flows of the gateways shown, weighted by their arrival rates. It is
// drawn one statistics window after the decision, beside the measurement of the window it predicted.
function plotPrediction(d) {
  const last = S.history[S.history.length - 1];
  if (!last || !d || !d.flows) return;   // nothing measured yet: nothing to set it against
  const x = new Date(d.at).getTime() + last.windowSeconds * 1000;
  classNames().forEach((c, i) => {
    let lw = 0, tw = 0;
    for (const f of d.flows) {
      if (f['class'] !== c || !configuredGateway(f.gateway) || (S.gateway !== 'all' && f.gateway !== S.gateway)) continue;
      // an idle flow's prediction means nothing (no arrivals, nothing to predict)
      if (!(f.arrivalRate > 0) || !(f.predictedResponseTime > 0) || !Number.isFinite(f.predictedResponseTime)) continue;
      lw += f.arrivalRate; tw += f.arrivalRate * f.predictedResponseTime;
    }
    if (lw > 0) push(dataset(S.charts.rt, c + ' predicted', i, 'dashdot'), x, tw / lw);
  });
}

function plot(p) {
  S.plotted[p.gateway] = p;
  if (S.gateway !== 'all' && p.gateway !== S.gateway) return;
  const x = new Date(p.at).getTime();
  const horizon = x - 60000;
  const shown = Object.values(S.plotted).filter(g => new Date(g.at).getTime() >= horizon && configuredGateway(g.gateway)
    && (S.gateway === 'all' || g.gateway === S.gateway));   // unknown gateways are not counted
  classNames().forEach((c, i) => {
    let thr = 0, q = 0, rtw = 0, uw = 0, w = 0, n = 0, rtSum = 0, uSum = 0, un = 0, p95 = null, offered = 0, realised = 0;
    for (const g of shown) {
      const k = g.classes[c];
      if (!k) continue;
      n++; thr += k.throughput; q += k.queueLength; rtSum += k.responseTime;
      rtw += k.responseTime * k.throughput; w += k.throughput;
      if (k.throughput > 0 || k.responseTime > 0) p95 = Math.max(p95 === null ? 0 : p95, k.p95ResponseTime);
      if (k.utility !== null && k.utility !== undefined) { uw += k.utility * k.throughput; uSum += k.utility; un++; }
      offered += k.offeredYield || 0; realised += k.realisedYield || 0;
    }
    if (!n) return;
    const rt = w > 0 ? rtw / w : rtSum / n;
    const u = un ? (w > 0 ? uw / w : uSum / un) : null;
    push(dataset(S.charts.rt, c, i, false), x, rt);
    push(dataset(S.charts.rt, c + ' p95', i, 'dotted'), x, p95);
    const target = S.cluster.classes[i].targetSeconds;
    const t = dataset(S.charts.rt, c + ' target', i, true);
    t.data = [{ x: (S.charts.rt.data.datasets[0].data[0] || { x }).x, y: target }, { x, y: target }];
    push(dataset(S.charts.x, c, i, false), x, thr);
    push(dataset(S.charts.q, c, i, false), x, q);
    push(dataset(S.charts.u, c, i, false), x, u);
    // 002's LossPercent pooled over the gateways shown: their offered and realised yield summed
    push(dataset(S.charts.loss, c, i, false), x, offered > 0 ? Math.max(0, (offered - realised) / offered * 100) : null);
  });
  // rejections per second by reason, over every class of the gateways shown (drops counted over
  // each report's statistics window)
  const perReason = {};
  for (const g of shown) {
    for (const k of Object.values(g.classes)) {
      for (const [reason, count] of Object.entries(k.drops || {})) {
        perReason[reason] = (perReason[reason] || 0) + count / Math.max(g.windowSeconds, 1e-9);
      }
    }
  }
  for (const r of S.reasons) if (!(r in perReason)) perReason[r] = 0;
  for (const [reason, rate] of Object.entries(perReason)) {
    if (!S.reasons.includes(reason)) S.reasons.push(reason);
    push(dataset(S.charts.rej, reason, S.reasons.indexOf(reason), false), x, rate);
  }
}

function renderGatewaySelector() {
  const sel = $('chart-gateway');
  const values = ['all'].concat(configuredGateways().map(g => g.id));
  const current = Array.from(sel.options).map(o => o.value);
  if (current.join() === values.join()) return;
  sel.replaceChildren(...values.map(v => el('option', { value: v }, v === 'all' ? 'all gateways' : v)));
  if (values.includes(S.gateway)) sel.value = S.gateway; else { S.gateway = 'all'; sel.value = 'all'; redraw(); }
}

// ---- tables ----------------------------------------------------------------------------------

function renderPools() {
  const pools = S.cluster ? (S.cluster.pools || []) : [];
  $('pools-card').hidden = pools.length === 0;
  if (!pools.length) return;
  const owners = new Set(pools.map(p => p.owner).filter(o => o));
  $('pool-summary').textContent = '— ' + pools.length + ' pools, ' + owners.size + ' GRMs owning';
  fill($('pools').tBodies[0], pools.map(p => el('tr', { 'data-pool': p.name },
    el('td', {}, p.name), el('td', {}, p.owner || '—'),
    el('td', { class: 'num' }, p.epoch ? time(p.epoch) : '—'), el('td', {}, p.at ? ago(p.at) : '—'),
    el('td', {}, p.servers.join(' ')), el('td', {}, p.classes.join(' ')))));
}

function renderAll() {
  renderPools(); renderGateways(); renderServers(); renderMatrices(); renderDecisions(); renderPins(); renderFormChoices(); renderClasses();
  renderGatewaySelector();
}

function renderGateways() {
  if (!S.cluster) return;
  const period = 3000 * 5;
  let liveCount = 0;
  const known = new Set(S.cluster.gateways.map(g => g.id));
  // a gateway seen on the stream before the next cluster refresh is not configured as far as we know
  const rows = S.cluster.gateways.concat(Object.keys(S.latest).filter(id => !known.has(id))
    .map(id => ({ id, unknown: true, live: false, lastReport: null })));
  fill($('gateways').tBodies[0], rows.map(g => {
    const p = S.latest[g.id];
    const at = p ? p.at : g.lastReport;
    const age = at ? Date.now() - new Date(at).getTime() : Infinity;
    const live = age < Math.max(period, 15000) || (g.live && !p);
    if (live && !g.unknown) liveCount++;
    const cls = p ? Object.values(p.classes) : [];
    const lambda = cls.reduce((a, k) => a + k.arrivalRate, 0);
    const queued = cls.reduce((a, k) => a + k.queueLength, 0);
    const a = S.allocation[g.id];
    const badge = g.unknown ? el('span', { class: 'badge unknown', title: 'not in the configuration; not counted' },
      'unknown' + (live ? ' (reporting)' : '')) : el('span', { class: 'badge ' + (live ? 'live' : 'silent') }, live ? 'live' : 'silent');
    return el('tr', { 'data-gateway': g.id, class: g.unknown ? 'unknown' : '' }, el('td', {}, g.id),
      el('td', { class: 'kind', title: g.kind === 'haproxy' ? 'HAProxy, driven by arbiter agent haproxy' : undefined }, g.kind || '—'),
      el('td', {}, badge),
      el('td', {}, ago(at)), el('td', { class: 'num' }, a ? 'v' + a.version : '—'),
      el('td', { class: 'num' }, p ? fmt(lambda) : '—'), el('td', { class: 'num' }, p ? queued : '—'));
  }));
  const unknown = rows.filter(g => g.unknown).length;
  const unknownServers = S.cluster.servers.filter(s => s.unknown).length;
  $('server-summary').textContent = '— ' + configuredServers().length + ' configured'
    + (unknownServers ? ' · ' + unknownServers + ' unknown, not counted' : '');
  $('gateway-summary').textContent = '— ' + liveCount + ' of ' + configuredGateways().length + ' live'
    + (unknown ? ' · ' + unknown + ' unknown, not counted' : '');
}

function renderServers() {
  if (!S.cluster) return;
  fill($('servers').tBodies[0], S.cluster.servers.map(s => el('tr', { 'data-server': s.id, class: s.unknown ? 'unknown' : '' },
    el('td', {}, s.id),
    el('td', {}, s.unknown ? el('span', { class: 'badge unknown', title: 'not in the configuration; not counted' },
                                'unknown' + (s.state ? ' ' + s.state : ''))
                           : el('span', { class: 'badge ' + s.state }, s.state),
       s.target && s.target !== s.state ? ' → ' + s.target : ''),
    el('td', { class: 'num' }, s.concurrency + (s.autoConcurrency ? ' (auto)' : '')),
    el('td', {}, Object.entries(s.caps).map(([g, n]) => g + ':' + n).join('  ') || '—'),
    el('td', { class: 'num', title: s.capacitySource ? 'req/s per server, ' + s.capacitySource + ' (the GRM\'s)'
                                     : 'no capacity estimate in use' },
       s.capacitySource ? fmt(s.capacity, 1) + ' req/s' : '—', s.capacitySource ? el('span', { class: 'unit' }, ' ' + s.capacitySource) : ''),
    el('td', { class: 'num' }, s.watts ? fmt(s.watts, 0) : '—'))));
}

function pinned(kind, a, b) {
  return S.overrides.some(o => o.kind === kind && (kind === 'weight' ? o.gateway === a && o['class'] === b : o.server === a));
}

// What the GRM made of a pin: the newest decision's status, else the one GET /api/overrides gave.
function pinStatus(id) {
  const d = S.decisions[0];
  const p = d && d.pins ? d.pins.find(x => x.id === id) : null;
  return p || (S.pinStatus || {})[id] || null;
}

// The weight pin on (g, c) that the GRM left out, or null.
function leftOutWeight(g, c) {
  for (const o of S.overrides) {
    if (o.kind !== 'weight' || o.gateway !== g || o['class'] !== c) continue;
    const st = pinStatus(o.id);
    if (st && !st.applied) return st;
  }
  return null;
}

function renderMatrices() {
  if (!S.cluster) return;
  const classes = classNames();
  const gateways = configuredGateways().map(g => g.id);
  const servers = configuredServers().map(s => s.id);   // Σ N(g,s) over configured servers only
  const head = (cols) => el('tr', {}, el('th', {}, ''), ...cols.map(c => el('th', { class: 'num' }, c)), el('th', { class: 'num' }, 'Σ'));
  $('weights').tHead.replaceChildren(head(classes));
  fill($('weights').tBodies[0], gateways.map(g => {
    const a = S.allocation[g];
    const w = a ? a.weights : {};
    const sum = classes.reduce((t, c) => t + (w[c] || 0), 0);
    return el('tr', { 'data-gateway': g }, el('td', {}, g),
      ...classes.map(c => {
        const out = leftOutWeight(g, c);
        return el('td', { class: out ? 'left-out' : pinned('weight', g, c) ? 'pinned' : '', 'data-class': c,
          title: out ? 'pin not applied: ' + out.reason : pinned('weight', g, c) ? 'pinned by an operator' : '' },
          a && c in w ? fmt(w[c]) : '—');
      }),
      el('td', { class: 'num' }, a ? fmt(sum) : '—'));
  }));
  $('caps').tHead.replaceChildren(head(servers));
  fill($('caps').tBodies[0], gateways.map(g => {
    const a = S.allocation[g];
    const n = a ? a.serverCaps : {};
    const sum = servers.reduce((t, s) => t + (n[s] || 0), 0);
    return el('tr', {}, el('td', {}, g), ...servers.map(s => el('td', {}, a ? (n[s] || 0) : '—')),
      el('td', { class: 'num' }, a ? sum : '—'));
  }));
}

// What a decision changed: the shares it set, the servers' power and N_s, the live gateways and
// the pins. Consecutive decisions with the same signature fold into one row ("×12, 10:13:12-10:13:14").
function signature(d) {
  return JSON.stringify([d.liveGateways, d.overrides, (d.pins || []).map(p => [p.id, p.applied]),
    (d.flows || []).map(f => [f.gateway, f['class'], f.weight]),
    Object.entries(d.servers || {}).map(([id, v]) => [id, v.state, v.concurrency])]);
}

function foldDecisions(decisions) {
  const groups = [];
  for (const d of decisions) {   // newest first
    const sig = signature(d);
    const g = groups[groups.length - 1];
    if (g && g.sig === sig) { g.count++; g.oldest = d; } else groups.push({ sig, count: 1, newest: d, oldest: d });
  }
  return groups;
}

// How well the GRM's flow model predicted lately, per class: mean |t_pred − t_measured| / t_measured over
// its checked predictions (docs/grm.md, "Prediction error"); absent in decisions of an older GRM.
function predictionErrors(d) {
  const e = Object.entries(d.predictionErrors || {}).sort(([a], [b]) => a.localeCompare(b));
  return e.length ? e.map(([c, v]) => c + ' ' + fmt(100 * v.meanAbs, 0) + ' %').join(' · ') : '—';
}
function predictionSamples(d) {
  const e = Object.entries(d.predictionErrors || {}).sort(([a], [b]) => a.localeCompare(b));
  return e.length ? 'mean |predicted − measured| / measured response time over the last checked predictions: '
      + e.map(([c, v]) => c + ' ' + v.samples).join(', ') : 'no prediction checked lately';
}

function renderDecisions() {
  const d0 = S.decisions[0];
  $('decision-summary').textContent = d0 ? '— last Ω ' + fmt(d0.objective, 3) + ', solved in '
      + fmt(d0.solveSeconds * 1000, 2) + ' ms (' + d0.combine + '); prediction error ' + predictionErrors(d0)
      : '— none yet';
  fill($('decisions').tBodies[0], foldDecisions(S.decisions).slice(0, DECISION_ROWS).map(g => {
    const d = g.newest;
    const when = g.count > 1 ? '×' + g.count + ', ' + time(g.oldest.at) + '–' + time(d.at) : time(d.at);
    return el('tr', { 'data-count': g.count, title: g.count > 1 ? g.count + ' decisions that changed nothing; the newest shown' : '' },
      el('td', {}, when), el('td', { class: 'num' }, d.sequence), el('td', {}, d.grm + (d.pool ? ' · ' + d.pool : '')),
      el('td', { class: 'num' }, fmt(d.objective, 3)), el('td', { class: 'num' }, fmt(d.solveSeconds * 1000, 2) + ' ms'),
      el('td', {}, d.liveGateways.join(' ')),
      el('td', { class: 'prediction-error', title: predictionSamples(d) }, predictionErrors(d)),
      el('td', {}, ...(d.overrides.length ? d.overrides.map(id => {
        const p = (d.pins || []).find(x => x.id === id);
        return el('span', p && !p.applied ? { class: 'left-out', title: 'not applied: ' + p.reason } : {}, id + ' ');
      }) : ['—'])));
  }));
}

function describe(o) {
  switch (o.kind) {
    case 'weight': return ['w(' + o.gateway + ', ' + o['class'] + ')', fmt(o.value)];
    case 'concurrency': return ['N_s of ' + o.server, fmt(o.value, 0)];
    case 'target': return ['τ of ' + o['class'], fmt(o.value) + ' s'];
    case 'utility': return ['utility of ' + o['class'], 'φ ' + fmt(o.phi) + ' α ' + fmt(o.alpha) + ' β ' + fmt(o.beta)];
    case 'power': return ['power of ' + o.server, o.state];
    default: return [o.id, ''];
  }
}

function renderPins() {
  const admin = S.session && S.session.role === 'admin';
  const rows = S.overrides.map(o => {
    const [what, value] = describe(o);
    const st = pinStatus(o.id);
    const out = st && !st.applied;
    return el('tr', { 'data-id': o.id, class: out ? 'left-out' : '' }, el('td', {}, what), el('td', { class: 'num' }, value),
      el('td', { class: 'pin-status', title: out ? st.reason : st ? '' : 'no GRM decision has reported on this pin yet' },
        !st ? '—' : st.applied ? 'applied' : 'not applied: ' + st.reason),
      el('td', {}, o.author), el('td', {}, time(o.at)),
      el('td', {}, admin ? el('button', { class: 'link', type: 'button', title: 'unpin', 'data-unpin': o.id,
        onclick: () => unpin(o.id) }, 'unpin') : ''));
  });
  if (!rows.length) rows.push(el('tr', {}, el('td', { colspan: 6, class: 'unit' }, 'no pins: the GRM decides everything')));
  fill($('pins').tBodies[0], rows);
}

function renderFormChoices() {
  if (!S.cluster) return;
  const opts = (sel, values) => {
    const keep = sel.value;
    sel.replaceChildren(...values.map(v => el('option', { value: v }, v)));
    if (values.includes(keep)) sel.value = keep;
  };
  opts($('ov-gateway'), configuredGateways().map(g => g.id));
  opts($('ov-class'), classNames());
  opts($('ov-server'), configuredServers().map(s => s.id));
  showFields();
}

function renderClasses() {
  if (!S.cluster) return;
  const t = el('table', {}, el('thead', {}, el('tr', {}, ...['class', 'target τ', 'configured τ', 'φ', 'α', 'β', 'scale', 'initial w', 'min share', '']
    .map(h => el('th', {}, h)))), el('tbody', {}, ...S.cluster.classes.map(c => el('tr', {},
      el('td', {}, c.name), el('td', { class: c.targetSeconds !== c.configuredTargetSeconds ? 'pinned' : '' }, fmt(c.targetSeconds) + ' s'),
      el('td', {}, fmt(c.configuredTargetSeconds) + ' s'), el('td', {}, fmt(c.phi)), el('td', {}, fmt(c.alpha)),
      el('td', {}, fmt(c.beta)), el('td', {}, c.utilityScale || 'absolute'), el('td', {}, fmt(c.weight)), el('td', {}, fmt(c.minShare)), el('td', {}, c['default'] ? 'default' : '')))));
  $('classes-view').replaceChildren(t);
}

function showFields() {
  const kind = $('ov-kind').value;
  for (const l of document.querySelectorAll('#override-form label[data-for]')) {
    l.hidden = !l.dataset.for.split(' ').includes(kind);
  }
  $('ov-value').required = kind !== 'power';
}

// ---- overrides -------------------------------------------------------------------------------

async function pin(ev) {
  ev.preventDefault();
  const kind = $('ov-kind').value;
  const body = { kind };
  if (kind === 'weight') { body.gateway = $('ov-gateway').value; body['class'] = $('ov-class').value; }
  if (kind === 'target') body['class'] = $('ov-class').value;
  if (kind === 'concurrency' || kind === 'power') body.server = $('ov-server').value;
  if (kind === 'power') body.state = $('ov-state').value;
  else body.value = $('ov-value').value === '' ? null : Number($('ov-value').value);
  const r = await api('POST', '/api/overrides', body);
  const m = $('ov-message');
  if (r.status === 201) {
    m.className = 'message ok';
    m.textContent = 'published ' + r.data.id + ' on the overrides topic';
    await refreshCluster();
  } else {
    m.className = 'message error';
    m.textContent = (r.data && r.data.error) || ('error ' + r.status);
  }
}

async function unpin(id) {
  const r = await api('DELETE', '/api/overrides/' + encodeURIComponent(id));
  const m = $('ov-message');
  m.className = r.status === 200 ? 'message ok' : 'message error';
  m.textContent = r.status === 200 ? 'unpinned ' + id : ((r.data && r.data.error) || ('error ' + r.status));
  await refreshCluster();
}

document.addEventListener('DOMContentLoaded', boot);
