// crdlab's web UI: the objects of the lab as a graph of ownerReferences, the
// timeline in lanes per actor, each object's page, and the scenario that
// runs. One stream (server-sent events) feeds it: a snapshot, then every
// change. No library, no network: everything is served by crdlab.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const CLUSTER = "\u0000cluster";

// Kinds the graph leaves out unless "every kind" is ticked: plumbing that
// every namespace has, or that says nothing about control loops.
const HIDDEN = new Set(["Namespace", "ServiceAccount", "Secret", "Role", "RoleBinding", "ClusterRole",
  "ClusterRoleBinding", "EndpointSlice", "Endpoints", "ControllerRevision", "APIService", "FlowSchema",
  "PriorityLevelConfiguration", "PriorityClass", "CustomResourceDefinition", "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding", "Lease", "CSINode", "RuntimeClass",
  "IPAddress", "ServiceCIDR", "StorageClass", "CSIDriver", "VolumeAttachment", "DeviceClass",
  "ResourceSlice", "CertificateSigningRequest", "ClusterTrustBundle", "StorageVersion",
  "StorageVersionMigration", "VolumeAttributesClass"]);
// The order of roots, top to bottom.
const ORDER = ["Deployment", "StatefulSet", "DaemonSet", "CronJob", "Job", "ReplicaSet", "Pod",
  "Service", "ConfigMap", "PersistentVolumeClaim", "HorizontalPodAutoscaler", "PodDisruptionBudget"];

// ---------- language ----------

// The page speaks English or Chinese: LANG (lang.js, which the lab serves
// from lab/lang's catalog) has the words of each language by their English
// text, the actors' glosses, and the lab's language ('crdlab up --lang'),
// the default until the user picks one here (remembered in this browser).
const LANG_KEY = "crdlab-lang";
let lang = localStorage.getItem(LANG_KEY) || LANG.default || "en";

// t returns msg in the page's language ({0}, {1}... filled with args);
// a message with no translation is shown in English.
function t(msg, ...args) {
  const tr = (LANG.messages[lang] || {})[msg] || msg;
  return tr.replace(/\{(\d+)\}/g, (_, i) => String(args[Number(i)]));
}

// detailText is a timeline line's detail (or a change's, on an object's
// page) in the page's language: the lab sends it worded in each language
// (details, from lab/lang's catalog, as the terminal says it), the page
// translates none of it. English: the detail as recorded.
function detailText(e) { return (e.details && e.details[lang]) || e.detail || ""; }

// actorName names a timeline actor, with a gloss in Chinese:
// replicaset（副本集控制器）. Filters keep the actor's own name.
function actorName(a) { return (LANG.actors[lang] || {})[a] || a; }

// WORDS are what the page translates with t() from a variable rather than
// a literal: the words that come from the lab as data (lab/ui's summary of
// an object's state, a scenario report's status) and the connection's
// state. lab/ui's test checks each has its Chinese, as every t() of a literal.
const WORDS = ["live", "disconnected, retrying…", "no such object: it was never seen, or deleted long ago", "no such group: its owner has no Pods now", "Running", "Pending", "Succeeded", "Failed", "Unknown", "Ready", "not Ready", "NotReady",
  "not scheduled", "SchedulingDisabled", "Terminating", "Complete", "Active", "Bound", "Available", "not Available",
  "Released", "Lost", "Ready {0}/{1}", "Active {0}", "succeeded {0}", "held by finalizer {0}", ", ",
  "PASSED", "FAILED", "SKIPPED", "RUNNING", "this lab serves no course"];

// stateText says an object's state (lab/ui's summary: "Running, Ready",
// "Ready 2/3", "Terminating, held by finalizer x") in the page's language.
function stateText(s) {
  if (lang === "en" || !s) return s;
  let tail = "";
  const held = ", held by finalizer ";
  const i = s.indexOf(held);
  if (i >= 0) { tail = t(", ") + t("held by finalizer {0}", s.slice(i + held.length)); s = s.slice(0, i); }
  return s.split(", ").map(statePart).join(t(", ")) + tail;
}
function statePart(p) {
  const c = p.indexOf(": "); // a condition's message stays as it is
  const head = c < 0 ? p : p.slice(0, c), msg = c < 0 ? "" : p.slice(c);
  let m;
  if ((m = head.match(/^Ready (\d+)\/(\d+)$/))) return t("Ready {0}/{1}", m[1], m[2]) + msg;
  if ((m = head.match(/^Active (\d+)$/))) return t("Active {0}", m[1]) + msg;
  if ((m = head.match(/^succeeded (\d+)$/))) return t("succeeded {0}", m[1]) + msg;
  return t(head) + msg;
}

// prose joins the lines of a scenario's text as a browser would, but
// without a space where a line break falls between two Chinese characters
// or beside Chinese punctuation (the terminal's format.Wrap does the same).
function prose(text) {
  const cjk = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef";
  return (text || "").replace(new RegExp(`([${cjk}])\\s*\\n\\s*(?=[${cjk}])`, "g"), "$1")
    .replace(new RegExp(`([\u3000-\u303f\uff00-\uff60])\\s*\\n\\s*`, "g"), "$1")
    .replace(new RegExp(`\\s*\\n\\s*(?=[\u3000-\u303f\uff00-\uff60])`, "g"), "");
}

// applyLang puts the page's fixed words (data-t, data-t-title) in its
// language.
function applyLang() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const e of document.querySelectorAll("[data-t]")) e.textContent = t(e.dataset.t);
  for (const e of document.querySelectorAll("[data-t-title]")) e.title = t(e.dataset.tTitle);
  $("lang").value = lang;
}

function setLang(l) {
  lang = l;
  localStorage.setItem(LANG_KEY, l);
  applyLang();
  renderNamespaces();
  renderActors();
  renderEvents();
  renderScenario();
  renderCourse();
  if (state.pageFor) refreshPage();
  schedule();
}

const state = {
  objects: new Map(),   // uid → summary
  byKey: new Map(),     // kind/namespace/name → its summary (objectOf)
  groups: new Map(),    // owner uid → its Pods as one group (more than lab/ui's groupAbove)
  events: [],           // timeline lines, oldest first
  reports: [],          // scenario report entries
  actors: new Set(),
  ns: "default",
  sel: "",              // selected object's uid
  pageFor: "",          // uid whose page is open (GROUP + owner: a group's)
  groupState: "",       // the state whose Pods a group's page lists ("": all)
  hint: null,           // the lesson's answer to the hint button: {step, text}
  course: null,         // the course map (api/course), while it is open
  courseErr: "",
};

// ---------- the stream ----------

function connect() {
  const es = new EventSource("api/stream");
  const conn = (msg, cls) => { $("conn").dataset.t = msg; $("conn").textContent = t(msg); $("conn").className = "conn " + cls; };
  es.onopen = () => conn("live", "live");
  es.onerror = () => conn("disconnected, retrying…", "down");
  es.onmessage = (m) => handle(JSON.parse(m.data));
}

function handle(m) {
  switch (m.type) {
    case "snapshot":
      state.objects = new Map(m.objects.map((o) => [o.uid, o]));
      state.byKey = new Map();
      for (const o of m.objects) index(o);
      state.groups = new Map((m.groups || []).map((g) => [g.owner, g]));
      state.events = m.events || [];
      state.actors = new Set(state.events.map((e) => e.actor));
      state.reports = [];
      for (const r of m.reports || []) addReport(r, false);
      renderScenario();
      renderNamespaces();
      renderActors();
      renderEvents();
      break;
    case "object":
      if (applyObject(m.object)) renderNamespaces();
      break;
    case "event":
      if (addEvent(m.event)) renderEvents();
      break;
    case "batch": {
      // The changes of up to 250 ms (lab/ui's flushEvery): the groups
      // first (a group hides its Pods' boxes), each object's last state,
      // the timeline's lines.
      let ns = false, lines = false;
      for (const g of m.groups || []) applyGroup(g);
      for (const o of m.objects || []) ns = applyObject(o) || ns;
      const events = m.events || [], fresh = [];
      for (const e of events) lines = addEvent(e, fresh) || lines;
      if (ns) renderNamespaces();
      if (lines) renderEvents();
      else appendEvents(fresh);
      break;
    }
    case "report":
      addReport(m.report, true);
      renderScenario();
      refreshCourse(); // a task done is progress
      break;
  }
  schedule();
}

// applyObject takes an object's new state; true if the namespace list
// changes.
function applyObject(o) {
  const known = state.objects.get(o.uid);
  state.objects.set(o.uid, o);
  index(o);
  if (o.uid === state.pageFor && (!known || known.changes !== o.changes || known.gone !== o.gone)) refreshPage();
  return o.kind === "Namespace" && !known;
}

// applyGroup takes a group's counts: a group hides its Pods' boxes; a
// group no more (grouped false) is followed by its Pods' boxes.
function applyGroup(g) {
  if (!g.grouped) {
    state.groups.delete(g.owner);
  } else {
    if (!state.groups.has(g.owner)) {
      for (const o of state.objects.values()) if (o.group === g.owner) { state.objects.delete(o.uid); unindex(o); }
    }
    state.groups.set(g.owner, g);
  }
  if (state.pageFor === GROUP + g.owner) refreshPage();
}

// addEvent puts a timeline line in its place: the lab's timeline comes in
// the cluster's order (etcd revision); a line that came late goes in its
// place, by its revision. True if the list must be drawn again; else the
// line is added to it, or to fresh (a batch's: appendEvents adds them).
function addEvent(e, fresh) {
  let i = state.events.length;
  if (e.late && e.revision) while (i > 0 && (state.events[i - 1].revision || 0) > e.revision) i--;
  const atEnd = i === state.events.length;
  state.events.splice(i, 0, e);
  if (state.events.length > 2000) state.events.splice(0, state.events.length - 2000);
  if (!state.actors.has(e.actor)) { state.actors.add(e.actor); renderActors(); }
  if (!atEnd) return true;
  if (fresh) fresh.push(e); else appendEvent(e);
  return false;
}

// The graph and the lanes are drawn at most every 250 ms: at once after a
// quiet spell, and once for the changes that come within it (10,000 Pods
// make thousands a second).
const DRAW_EVERY = 250;
let pending = false, drawn = 0;
function schedule() {
  if (pending) return;
  pending = true;
  const draw = () => requestAnimationFrame(() => { pending = false; drawn = performance.now(); renderGraph(); renderLanes(); });
  const wait = drawn + DRAW_EVERY - performance.now();
  if (wait > 0) setTimeout(draw, wait); else draw();
}

// ---------- namespaces ----------

function renderNamespaces() {
  const sel = $("ns");
  const names = [...state.objects.values()].filter((o) => o.kind === "Namespace" && !o.gone).map((o) => o.name);
  if (state.ns !== CLUSTER && !names.includes(state.ns)) names.push(state.ns);
  names.sort();
  sel.replaceChildren(...names.map((n) => new Option(n, n)), new Option(t("(cluster-scoped)"), CLUSTER));
  sel.value = state.ns;
}

function selectNamespace(ns) {
  state.ns = ns;
  renderNamespaces();
  renderEvents();
  schedule();
}

// ---------- the graph ----------

const BOX_W = 210, BOX_H = 48, COL = 245, ROW = 58;

function visible(o) {
  if (o.gone) return false;
  if (!$("allkinds").checked && (HIDDEN.has(o.kind) || (o.kind === "ConfigMap" && o.name === "kube-root-ca.crt"))) return false;
  if (o.kind === "Node") return false; // their own column
  return state.ns === CLUSTER ? !o.namespace : o.namespace === state.ns;
}

function rank(kind) {
  const i = ORDER.indexOf(kind);
  return i < 0 ? ORDER.indexOf("ReplicaSet") - 0.5 : i; // custom resources among the workloads
}

// A group of Pods (lab/ui's Group: an owner's Pods, more than 50) as the
// graph places it: a box under its owner, as tall as its states need.
const GROUP = "group:";
function groupItem(g) {
  const h = Math.max(BOX_H, 36 + 14 * Object.keys(g.states).length);
  return { uid: GROUP + g.owner, kind: "Pod", name: g.ownerName, namespace: g.namespace, owners: [g.owner], _group: g, _h: h, _rows: (h + ROW - BOX_H) / ROW };
}

// Above GRID_ABOVE nodes (lab/ui's groupAbove), the nodes are a grid of
// cells by zone rather than a column of boxes.
const GRID_ABOVE = 50, CELL = 11, CELLS = 20;

function renderGraph() {
  const svg = $("graph");
  const shown = [...state.objects.values(), ...[...state.groups.values()].map(groupItem)].filter(visible);
  const byUID = new Map(shown.map((o) => [o.uid, o]));
  const children = new Map();
  const roots = [];
  for (const o of shown) {
    const parent = (o.owners || []).find((u) => byUID.has(u));
    o._parent = parent || "";
    if (parent) {
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(o);
    } else roots.push(o);
  }
  const cmp = (a, b) => rank(a.kind) - rank(b.kind) || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name);
  roots.sort(cmp);
  const pos = new Map();
  let row = 0, depthMax = 0;
  const place = (o, depth, seen) => {
    if (seen.has(o.uid)) return; // an ownerReference cycle
    seen.add(o.uid);
    depthMax = Math.max(depthMax, depth);
    pos.set(o.uid, { x: 10 + depth * COL, y: 10 + row * ROW });
    // Children without children of their own first: one long edge to a
    // big subtree rather than many past it.
    const leaf = (k) => (children.has(k.uid) ? 1 : 0);
    const kids = (children.get(o.uid) || []).sort((a, b) => leaf(a) - leaf(b) || cmp(a, b));
    if (kids.length === 0) { row += o._rows || 1; return; }
    for (const k of kids) place(k, depth + 1, seen);
  };
  const seen = new Set();
  for (const r of roots) place(r, 0, seen);

  const nodes = [...state.objects.values()].filter((o) => o.kind === "Node" && !o.gone).sort((a, b) => a.name.localeCompare(b.name));
  const nodeX = 10 + (depthMax + 1) * COL + 40;
  const grid = nodes.length > GRID_ABOVE;
  if (!grid) nodes.forEach((n, i) => pos.set(n.uid, { x: nodeX, y: 10 + i * ROW }));
  const nodeByName = new Map(nodes.map((n) => [n.name, n]));

  const parts = [];
  for (const o of shown) {
    const p = pos.get(o.uid);
    if (!p) continue;
    if (o._parent && pos.has(o._parent)) parts.push(edge(pos.get(o._parent), p, "edge owner", o._parent, o.uid));
    const node = o.kind === "Pod" && o.node && nodeByName.get(o.node);
    if (node && pos.has(node.uid)) parts.push(edge(p, pos.get(node.uid), "edge node", o.uid, node.uid));
  }
  for (const o of shown) parts.push(o._group ? groupBox(o, pos.get(o.uid)) : box(o, pos.get(o.uid)));
  let gridH = 0;
  if (grid) {
    const g = nodeGrid(nodes, nodeX);
    parts.push(g.el);
    gridH = g.height;
  } else for (const n of nodes) parts.push(box(n, pos.get(n.uid)));
  if (shown.length === 0) {
    const txt = document.createElementNS(SVG, "text");
    txt.setAttribute("x", 10); txt.setAttribute("y", 30); txt.setAttribute("class", "empty");
    txt.textContent = state.ns === CLUSTER ? t("nothing cluster-scoped to show") : t("namespace {0} is empty: try kubectl create deployment web --image=nginx --replicas=3", state.ns);
    parts.push(txt);
  }
  svg.replaceChildren(...parts);
  const h = Math.max(Math.max(row, grid ? 1 : nodes.length, 1) * ROW, gridH) + 20;
  svg.setAttribute("width", nodeX + Math.max(BOX_W, CELLS * CELL) + 20);
  svg.setAttribute("height", h);
}

function edge(a, b, cls, from, to) {
  const p = document.createElementNS(SVG, "path");
  const x1 = a.x + BOX_W, y1 = a.y + BOX_H / 2, x2 = b.x, y2 = b.y + BOX_H / 2, mx = (x1 + x2) / 2;
  p.setAttribute("d", `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`);
  p.setAttribute("class", cls);
  p.dataset.from = from;
  p.dataset.to = to;
  return p;
}

function clip(s, n) { return s.length > n ? s.slice(0, n - 1) + "…" : s; }

function box(o, p) {
  const g = document.createElementNS(SVG, "g");
  g.setAttribute("class", `box ${o.level || "ok"}${o.uid === state.sel ? " sel" : ""}`);
  g.setAttribute("transform", `translate(${p.x},${p.y})`);
  Object.assign(g.dataset, { uid: o.uid, kind: o.kind, name: o.name, namespace: o.namespace || "", owner: o._parent || "", node: o.node || "", state: o.state || "" });
  const r = document.createElementNS(SVG, "rect");
  r.setAttribute("width", BOX_W); r.setAttribute("height", BOX_H);
  const title = document.createElementNS(SVG, "title");
  title.textContent = `${o.kind} ${o.namespace ? o.namespace + "/" : ""}${o.name}\n${stateText(o.state)}${o.finalizers ? "\n" + t("finalizers: {0}", o.finalizers.join(", ")) : ""}\n${t("{0} change(s) seen; click for its page", o.changes)}`;
  const line = (cls, y, text) => {
    const txt = document.createElementNS(SVG, "text");
    txt.setAttribute("x", 8); txt.setAttribute("y", y); txt.setAttribute("class", cls);
    txt.textContent = text;
    return txt;
  };
  g.append(title, r, line("kind", 13, o.kind + (o.finalizers && !o.deleting ? "  · " + t("finalizer") : "")), line("name", 28, clip(o.name, 30)), line("state", 42, clip(stateText(o.state || ""), 34)));
  g.addEventListener("click", () => select(o.uid));
  return g;
}

// groupBox draws a group of Pods: how many, and how many in each state.
function groupBox(o, p) {
  const gr = o._group;
  const g = document.createElementNS(SVG, "g");
  g.setAttribute("class", `box group ${gr.level || "ok"}${o.uid === state.sel ? " sel" : ""}`);
  g.setAttribute("transform", `translate(${p.x},${p.y})`);
  Object.assign(g.dataset, { group: gr.owner, kind: "Pod", ownerKind: gr.ownerKind, ownerName: gr.ownerName, namespace: gr.namespace || "", owner: o._parent || "", count: gr.count });
  const r = document.createElementNS(SVG, "rect");
  r.setAttribute("width", BOX_W); r.setAttribute("height", o._h);
  const title = document.createElementNS(SVG, "title");
  title.textContent = t("{0} Pods of {1} {2}: click to list them", gr.count, gr.ownerKind, gr.ownerName);
  const line = (cls, y, text) => {
    const txt = document.createElementNS(SVG, "text");
    txt.setAttribute("x", 8); txt.setAttribute("y", y); txt.setAttribute("class", cls);
    txt.textContent = text;
    return txt;
  };
  g.append(title, r, line("kind", 13, "Pod"), line("name", 28, t("{0} Pods", gr.count)));
  podStates(gr).forEach(([st, n], i) => {
    const c = line("count", 42 + 14 * i, `${n}  ${stateText(st)}`);
    Object.assign(c.dataset, { state: st, n });
    g.append(c);
  });
  g.addEventListener("click", () => selectGroup(gr.owner));
  return g;
}

// podStates are a group's counts, in the order a Pod goes through them.
const STATE_ORDER = ["Running, Ready", "Running, not Ready", "Pending", "Terminating", "Succeeded", "Failed"];
function podStates(g) {
  const rank = (st) => (STATE_ORDER.indexOf(st) + 1 || STATE_ORDER.length + 1);
  return Object.entries(g.states).sort((a, b) => rank(a[0]) - rank(b[0]) || a[0].localeCompare(b[0]));
}

// nodeGrid draws the nodes as cells by zone (their topology.kubernetes.io/zone),
// each coloured by its state: at a thousand nodes, boxes would not fit.
function nodeGrid(nodes, x) {
  const g = document.createElementNS(SVG, "g");
  g.id = "nodegrid";
  const zones = new Map();
  for (const n of nodes) {
    if (!zones.has(n.zone || "")) zones.set(n.zone || "", []);
    zones.get(n.zone || "").push(n);
  }
  const names = [...zones.keys()].sort((a, b) => (a === "") - (b === "") || a.localeCompare(b));
  const ready = (n) => n.state === "Ready" || n.state.startsWith("Ready,");
  let y = 10;
  for (const z of names) {
    const zn = zones.get(z), nReady = zn.filter(ready).length;
    const zg = document.createElementNS(SVG, "g");
    zg.setAttribute("class", "zone");
    Object.assign(zg.dataset, { zone: z, count: zn.length, ready: nReady });
    const head = document.createElementNS(SVG, "text");
    head.setAttribute("x", x); head.setAttribute("y", y + 12); head.setAttribute("class", "zonehead");
    head.textContent = `${z || t("(no zone)")}: ${t("{0} nodes, {1} Ready", zn.length, nReady)}`;
    zg.append(head);
    y += 18;
    zn.forEach((n, i) => {
      const c = document.createElementNS(SVG, "rect");
      c.setAttribute("x", x + (i % CELLS) * CELL); c.setAttribute("y", y + Math.floor(i / CELLS) * CELL);
      c.setAttribute("width", CELL - 2); c.setAttribute("height", CELL - 2);
      c.setAttribute("class", `cell ${n.level || "ok"}${n.uid === state.sel ? " sel" : ""}`);
      Object.assign(c.dataset, { uid: n.uid, name: n.name, state: n.state || "" });
      zg.append(c);
    });
    y += Math.ceil(zn.length / CELLS) * CELL + 10;
    g.append(zg);
  }
  Object.assign(g.dataset, { count: nodes.length, ready: nodes.filter(ready).length });
  // One listener for the cells, and a cell's tooltip made when it is
  // pointed at: a thousand of each cost more than the grid.
  g.addEventListener("click", (ev) => { if (ev.target.dataset.uid) select(ev.target.dataset.uid); });
  g.addEventListener("mouseover", (ev) => {
    const c = ev.target, n = state.objects.get(c.dataset.uid || "");
    if (!n || c.firstChild) return;
    const title = document.createElementNS(SVG, "title");
    title.textContent = `${n.kind} ${n.name}\n${stateText(n.state)}`;
    c.append(title);
  });
  return { el: g, height: y };
}

// ---------- the timeline ----------

function key(kind, ns, name) { return `${kind}/${ns || ""}/${name}`; }

// objectOf is the object a timeline line is about: the one there now, else
// the last deleted one of its name; none for a Pod shown in a group.
function objectOf(e) { return state.byKey.get(key(e.kind, e.namespace, e.name)) || null; }

function index(o) {
  const k = key(o.kind, o.namespace, o.name), held = state.byKey.get(k);
  if (!held || held.uid === o.uid || held.gone || !o.gone) state.byKey.set(k, o);
}

function unindex(o) {
  const k = key(o.kind, o.namespace, o.name);
  if ((state.byKey.get(k) || {}).uid === o.uid) state.byKey.delete(k);
}

function matches(e) {
  const actor = $("actor").value;
  if (actor && e.actor !== actor) return false;
  if ($("nsonly").checked) {
    if (state.ns === CLUSTER ? e.namespace : (e.namespace && e.namespace !== state.ns)) return false;
  }
  const f = $("objfilter").value.trim().toLowerCase();
  if (f && !`${e.kind}/${e.name}`.toLowerCase().includes(f)) return false;
  return true;
}

function renderActors() {
  const sel = $("actor");
  const v = sel.value;
  sel.replaceChildren(new Option(t("all"), ""), ...[...state.actors].sort().map((a) => new Option(actorName(a), a)));
  sel.value = v;
}

function eventItem(e) {
  const li = document.createElement("li");
  Object.assign(li.dataset, { actor: e.actor, verb: e.verb, kind: e.kind, name: e.name, namespace: e.namespace || "", revision: e.revision || "" });
  if (e.late) { li.classList.add("late"); li.title = t("arrived late: shown in its place by its revision"); }
  const at = new Date(e.time);
  const time = document.createElement("time");
  time.textContent = at.toTimeString().slice(0, 8) + "." + String(at.getMilliseconds()).padStart(3, "0");
  const actor = document.createElement("span"); actor.className = "actor"; actor.textContent = actorName(e.actor);
  const verb = document.createElement("span"); verb.className = "verb v-" + e.verb; verb.textContent = e.verb;
  const obj = document.createElement("span"); obj.className = "obj";
  obj.textContent = `${e.kind.toLowerCase()}/${e.name}` + (e.namespace && state.ns !== e.namespace ? ` (${e.namespace})` : "");
  const detail = document.createElement("span"); detail.className = "detail"; detail.textContent = detailText(e);
  li.append(time, actor, verb, obj, detail);
  const o = objectOf(e);
  if (o && o.uid === state.sel) li.classList.add("sel");
  li.addEventListener("click", () => selectLine(e));
  return li;
}

function renderEvents() {
  const list = $("events");
  const items = [];
  for (let i = state.events.length - 1; i >= 0 && items.length < 500; i--) {
    if (matches(state.events[i])) items.push(eventItem(state.events[i]));
  }
  list.replaceChildren(...items);
}

function appendEvent(e) { appendEvents([e]); }

// appendEvents adds lines at the end of the timeline (the top of the
// list, newest first), which keeps its last 500.
function appendEvents(events) {
  const items = [];
  for (let i = events.length - 1; i >= 0 && items.length < 500; i--) if (matches(events[i])) items.push(eventItem(events[i]));
  if (items.length === 0) return;
  const list = $("events");
  list.prepend(...items);
  while (list.childElementCount > 500) list.lastElementChild.remove();
}

const LABEL_W = 170, LANE_H = 18;

function renderLanes() {
  const svg = $("lanes");
  const width = svg.clientWidth || 800;
  const now = Date.now(), WINDOW_MS = Number($("window").value);
  const at = (e) => e._ms || (e._ms = Date.parse(e.time));
  let recent = state.events.filter((e) => now - at(e) < WINDOW_MS && matches(e));
  const lanes = [...new Set(recent.map((e) => e.actor))].sort();
  const xOf = (e) => LABEL_W + (width - LABEL_W - 8) * (1 - (now - at(e)) / WINDOW_MS);
  if (recent.length > 500) {
    // Thousands of lines: one dot of a verb per lane and 2 pixels, the
    // last; the others would be drawn under it.
    const last = new Map();
    for (const e of recent) last.set(`${e.actor} ${e.verb} ${Math.round(xOf(e) / 2)}`, e);
    recent = [...last.values()];
  }
  const parts = [];
  lanes.forEach((a, i) => {
    const y = 14 + i * LANE_H;
    const l = document.createElementNS(SVG, "line");
    l.setAttribute("x1", LABEL_W); l.setAttribute("x2", width); l.setAttribute("y1", y); l.setAttribute("y2", y);
    l.setAttribute("class", "lane");
    const txt = document.createElementNS(SVG, "text");
    txt.setAttribute("x", 4); txt.setAttribute("y", y + 4); txt.setAttribute("class", "lane-label");
    txt.textContent = clip(actorName(a), 26);
    parts.push(l, txt);
  });
  for (const e of recent) {
    const x = xOf(e);
    const c = document.createElementNS(SVG, "circle");
    c.setAttribute("cx", x.toFixed(1)); c.setAttribute("cy", 14 + lanes.indexOf(e.actor) * LANE_H);
    const o = objectOf(e);
    c.setAttribute("r", o && o.uid === state.sel ? 7 : 5);
    c.setAttribute("class", "v-" + e.verb);
    const title = document.createElementNS(SVG, "title");
    title.textContent = `${actorName(e.actor)} ${e.verb} ${e.kind.toLowerCase()}/${e.name} ${detailText(e)}`;
    c.append(title);
    c.addEventListener("click", () => selectLine(e));
    parts.push(c);
  }
  if (lanes.length === 0) {
    const txt = document.createElementNS(SVG, "text");
    txt.setAttribute("x", 4); txt.setAttribute("y", 14); txt.setAttribute("class", "lane-label");
    txt.textContent = t("lanes per actor: nothing happened in this window");
    parts.push(txt);
  }
  svg.replaceChildren(...parts);
  svg.setAttribute("height", Math.max(lanes.length, 1) * LANE_H + 8);
}
setInterval(renderLanes, 1000);

// ---------- selection and the object's page ----------

function select(uid) {
  state.sel = uid;
  const o = state.objects.get(uid);
  if (o && !o.gone && o.kind !== "Node" && (o.namespace || CLUSTER) !== state.ns) selectNamespace(o.namespace || CLUSTER);
  renderGraph();
  renderLanes();
  for (const li of $("events").children) {
    const e = { kind: li.dataset.kind, name: li.dataset.name, namespace: li.dataset.namespace };
    li.classList.toggle("sel", !!o && o.kind === e.kind && o.name === e.name && (o.namespace || "") === e.namespace);
  }
  const b = document.querySelector(`.box[data-uid="${uid}"]`);
  if (b) b.scrollIntoView({ block: "nearest", inline: "nearest" });
  openPage(uid);
}

function openPage(uid) {
  state.pageFor = uid;
  $("drawer").hidden = false;
  refreshPage();
}

// selectLine selects the object of a timeline line; a Pod shown in a group
// has no box, so its page is asked for by its name.
async function selectLine(e) {
  const o = objectOf(e);
  if (o) { select(o.uid); return; }
  if (e.kind !== "Pod") return;
  const r = await fetch(`api/object?kind=Pod&namespace=${encodeURIComponent(e.namespace || "")}&name=${encodeURIComponent(e.name)}`);
  if (!r.ok) return;
  const p = await r.json();
  state.sel = p.summary.uid;
  openPage(p.summary.uid);
}

// selectGroup selects a group of Pods and opens its page: its counts, and
// its Pods by name (all, or those of the state picked: groupState).
function selectGroup(owner) {
  state.sel = GROUP + owner;
  state.groupState = "";
  renderGraph();
  openPage(GROUP + owner);
}

let fetching = false, again = false;
async function refreshPage() {
  if (fetching) { again = true; return; }
  fetching = true;
  try {
    const uid = state.pageFor;
    if (uid.startsWith(GROUP)) {
      const r = await fetch(`api/group?owner=${encodeURIComponent(uid.slice(GROUP.length))}&state=${encodeURIComponent(state.groupState || "")}`);
      if (uid === state.pageFor) renderGroupPage(r.ok ? await r.json() : null, r.ok ? "" : t((await r.text()).trim()));
      return;
    }
    const r = await fetch("api/object?uid=" + encodeURIComponent(uid));
    if (uid === state.pageFor) renderPage(r.ok ? await r.json() : null, r.ok ? "" : t((await r.text()).trim()));
  } finally {
    fetching = false;
    if (again) { again = false; refreshPage(); }
  }
}

function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  Object.assign(e, props || {});
  e.append(...kids);
  return e;
}

function diffPre(text) {
  const pre = el("pre", { className: "diff" });
  for (const line of text.split("\n")) {
    if (!line) continue;
    const cls = line.startsWith("@@") ? "hunk" : line[0] === "+" ? "add" : line[0] === "-" ? "del" : "ctx";
    pre.append(el("span", { className: cls }, line));
  }
  return pre;
}

function renderPage(p, err) {
  const page = $("page");
  if (!p) { page.replaceChildren(el("p", {}, err)); return; }
  const s = p.summary;
  const history = el("div", { id: "history" });
  for (const c of p.history) {
    const d = el("details", {}, el("summary", {},
      el("time", {}, new Date(c.time).toTimeString().slice(0, 8)), " ",
      el("span", { className: "actor" }, actorName(c.actor)), " ",
      el("span", { className: "verb v-" + c.verb }, c.verb), " ",
      el("span", { className: "detail" }, detailText(c))));
    if (c.diff) d.append(diffPre(c.diff));
    else d.append(el("p", { className: "msg" }, c.verb === "EXISTED" ? t("It was there when crdlab started watching.") : c.verb === "DELETE" ? t("Deleted.") :
      c.notKept ? t("No diff: a Pod shown in a group keeps the versions of its last two changes only.") : t("No diff: the version before it is not kept.")));
    history.append(d);
  }
  if (history.firstChild && p.history[0].diff) history.firstChild.open = true;
  const managers = el("table", {}, el("tr", {}, el("th", {}, t("manager")), el("th", {}, t("who")), el("th", {}, t("operation")), el("th", {}, t("subresource")), el("th", {}, t("time"))));
  for (const m of p.managers || []) {
    managers.append(el("tr", {}, el("td", {}, m.manager), el("td", {}, actorName(m.actor)), el("td", {}, m.operation), el("td", {}, m.subresource || ""), el("td", {}, m.time || "")));
  }
  const only = el("button", { type: "button", textContent: t("show only its timeline lines") });
  only.addEventListener("click", () => { $("objfilter").value = `${s.kind}/${s.name}`; renderEvents(); schedule(); });
  page.replaceChildren(
    el("h1", {}, `${s.kind} ${s.name}`),
    el("p", {}, `${s.namespace ? t("namespace {0}", s.namespace) + " · " : ""}${s.apiVersion} · ${s.gone ? t("deleted") : stateText(s.state || "")}`),
    only,
    el("h3", {}, t("History: {0} change(s), newest first", p.history.length) + (p.dropped ? t(" ({0} older not kept)", p.dropped) : "")),
    history,
    el("h3", {}, t("Managed fields: who owns which fields")),
    managers,
    el("h3", {}, t("YAML now")),
    el("pre", { id: "yaml" }, p.yaml),
  );
}

// renderGroupPage shows a group's page: its counts by state (a state's row
// lists its Pods), and its Pods by name, the first 200 (lab/ui's
// maxMembers); a Pod's row opens its own page.
function renderGroupPage(p, err) {
  const page = $("page");
  if (!p) { page.replaceChildren(el("p", {}, err)); return; }
  const g = p.group;
  const row = (label, n, st) => {
    const tr = el("tr", { className: "staterow" + (st === (state.groupState || "") ? " picked" : "") }, el("td", {}, label), el("td", { className: "n" }, String(n)));
    tr.dataset.state = st;
    tr.addEventListener("click", () => { state.groupState = st; refreshPage(); });
    return tr;
  };
  const states = el("table", { id: "groupstates" }, row(t("all"), g.count, ""), ...podStates(g).map(([st, n]) => row(stateText(st), n, st)));
  const members = el("table", { id: "members" }, el("tr", {}, el("th", {}, t("name")), el("th", {}, t("state")), el("th", {}, t("node"))));
  for (const o of p.members) {
    const tr = el("tr", { className: "member" }, el("td", {}, o.name), el("td", {}, stateText(o.state || "")), el("td", {}, o.node || ""));
    tr.dataset.uid = o.uid;
    tr.addEventListener("click", () => { state.sel = o.uid; openPage(o.uid); });
    members.append(tr);
  }
  const listed = p.total > p.members.length ? t("the first {0} of {1}, by name", p.members.length, p.total) : t("{0} Pods", p.total);
  page.replaceChildren(
    el("h1", {}, t("{0} Pods of {1} {2}", g.count, g.ownerKind, g.ownerName)),
    el("p", {}, `${g.namespace ? t("namespace {0}", g.namespace) + " · " : ""}${t("more than {0} Pods of one owner are one box; pick a state to list its Pods", 50)}`),
    states,
    el("h3", { id: "listed" }, (p.state ? stateText(p.state) + ": " : "") + listed),
    members,
  );
}

// ---------- the scenario ----------

function addReport(r, live) {
  if (r.type === "scenario") {
    state.reports = [];
    state.hint = null;
    if (live && $("follow").checked && r.namespace) selectNamespace(r.namespace);
  }
  state.reports.push(r);
}

function renderScenario() {
  const pane = $("scenario-pane"), box = $("scenario");
  if (state.reports.length === 0) { pane.hidden = true; return; }
  pane.hidden = false;
  const parts = [];
  const steps = el("ol", {});
  const stepItems = new Map();
  const stepLines = new Map(); // step → its timeline lines (the runner's assignment: Entry.step)
  const tasks = new Map(); // step → a lesson's task: its text, hints and check's state
  const linesOf = (step) => {
    let ul = stepLines.get(step);
    if (!ul) { ul = el("ul", { className: "steplines" }); stepLines.set(step, ul); }
    return ul;
  };
  for (const r of state.reports) {
    switch (r.type) {
      case "scenario":
        parts.push(el("h3", {}, `${r.scenario}: ${r.title || ""}`), el("p", { className: "concept" }, prose(r.text)), el("p", { className: "msg" }, t("namespace {0}", r.namespace)), steps);
        break;
      case "narrate":
        steps.append(el("div", { className: "narrate" }, prose(r.text)));
        break;
      case "step": {
        let li = stepItems.get(r.step);
        if (!li) { li = el("li", {}); stepItems.set(r.step, li); steps.append(li); }
        li.className = r.status;
        const mark = { running: "…", passed: "✓", failed: "✗", skipped: "–" }[r.status] || "";
        li.replaceChildren(`${mark} ${r.description}${r.seconds ? ` (${r.seconds.toFixed(2)}s)` : ""}`);
        if (r.text && r.status !== "running") li.append(el("div", { className: "msg" }, r.text));
        if (tasks.has(r.step)) li.append(tasks.get(r.step).box);
        li.append(linesOf(r.step));
        break;
      }
      case "task": { // a lesson's task: the runner's words are in the learner's language
        const task = { hints: el("ol", { className: "hints" }), check: el("div", { className: "check" }) };
        // The hint button asks the lesson for the next hint, as crdlab
        // learn hint does: the lesson reports it (hints), and its answer
        // shows under the button.
        const step = r.step;
        task.button = el("button", { type: "button", className: "hint", textContent: t("next hint") });
        task.button.addEventListener("click", () => askHint(step));
        const answer = state.hint && state.hint.step === step ? state.hint.text : "";
        task.box = el("div", { className: "task" }, el("div", { className: "tasklabel" }, r.description || ""),
          el("div", { className: "tasktext" }, r.text || ""), task.hints, task.check,
          el("div", { className: "hintbar" }, task.button, el("span", { className: "hintanswer" }, answer)));
        tasks.set(r.step, task);
        const li = stepItems.get(r.step);
        if (li) li.insertBefore(task.box, linesOf(r.step).parentNode === li ? linesOf(r.step) : null);
        break;
      }
      case "hint": {
        const task = tasks.get(r.step);
        if (task) task.hints.append(el("li", {}, el("b", {}, r.description || ""), " ", r.text || ""));
        break;
      }
      case "check": {
        const task = tasks.get(r.step);
        if (!task) break;
        task.check.className = "check " + r.status;
        task.button.hidden = r.status === "passed";
        task.check.replaceChildren(r.status === "passed" ? "✓" : `… ${r.description || ""}: ${r.text || ""}`);
        break;
      }
      case "event": {
        if (!r.event || !r.step) break;
        const e = r.event;
        const line = el("li", { className: e.late ? "late" : "" }, `${e.actor} ${e.verb} ${e.kind.toLowerCase()}/${e.name}${e.detail ? "  " + detailText(e) : ""}`);
        line.dataset.revision = e.revision || "";
        linesOf(r.step).append(line);
        const li = stepItems.get(r.step);
        if (li && !li.contains(linesOf(r.step))) li.append(linesOf(r.step));
        break;
      }
      case "note":
        steps.append(el("div", { className: "msg" }, r.text));
        break;
      case "result":
        parts.push(el("p", { className: "result " + r.status }, `${t(r.status.toUpperCase())} ${r.scenario}${r.text ? ": " + r.text : ""}`));
        if (r.description) parts.push(el("p", {}, prose(r.description)));
        break;
    }
  }
  box.replaceChildren(...parts);
}

// askHint asks the running lesson for the next hint of the task of step
// (api/hint, which asks it as crdlab learn hint does).
async function askHint(step) {
  state.hint = { step, text: t("asking the lesson…") };
  renderScenario();
  let text = "";
  try {
    const r = await fetch("api/hint?lang=" + encodeURIComponent(lang), { method: "POST" }); // its errors in the page's language
    const a = await r.json();
    text = a.noLesson ? t("No lesson is running: start one in a terminal with crdlab learn LESSON.") : (a.text || a.error || "");
  } catch (e) {
    text = String(e);
  }
  if (state.hint && state.hint.step === step) state.hint = { step, text };
  renderScenario();
}

// ---------- the course map ----------

// The course map: the lessons in order, where each sits in the seed, and
// the learner's progress in each (api/course reads it at each ask). It is
// fetched when it opens, and again at each report entry while it is open:
// a task done is progress.
let courseFetching = false, courseAgain = false;
async function refreshCourse() {
  if ($("course-drawer").hidden) return;
  if (courseFetching) { courseAgain = true; return; }
  courseFetching = true;
  try {
    const r = await fetch("api/course");
    if (r.ok) { state.course = await r.json(); state.courseErr = ""; }
    else state.courseErr = (await r.text()).trim();
  } catch (e) {
    state.courseErr = String(e);
  } finally {
    courseFetching = false;
    renderCourse();
    if (courseAgain) { courseAgain = false; refreshCourse(); }
  }
}

function renderCourse() {
  const table = $("course");
  if (state.courseErr) { table.replaceChildren(el("caption", {}, t(state.courseErr))); return; }
  const running = (state.reports.find((r) => r.type === "scenario") || {}).scenario;
  const head = el("tr", {}, ...["#", t("lesson"), t("title"), t("after"), t("time"), t("the seed's section"), t("tasks done")].map((h) => el("th", {}, h)));
  const rows = (state.course || []).map((c) => {
    const done = c.tasks > 0 && c.done >= c.tasks;
    const tr = el("tr", { className: (c.name === running ? "running" : "") + (done ? " complete" : "") },
      el("td", {}, c.order ? String(c.order) : ""),
      el("td", { className: "name" }, c.name),
      el("td", {}, c.title[lang] || c.title.en || ""),
      el("td", { className: "after" }, (c.after || []).join(", ")),
      el("td", { className: "time" }, c.minutes ? t("{0} min", c.minutes) : ""),
      el("td", { className: "seed" }, c.seed || ""),
      el("td", { className: "done" }, el("progress", { max: Math.max(c.tasks, 1), value: c.done }), ` ${c.done}/${c.tasks}`));
    tr.dataset.lesson = c.name;
    return tr;
  });
  table.replaceChildren(head, ...rows);
}

function openCourse() {
  $("course-drawer").hidden = false;
  refreshCourse();
}

// ---------- controls ----------

$("lang").addEventListener("change", (e) => setLang(e.target.value));
$("ns").addEventListener("change", (e) => selectNamespace(e.target.value));
$("allkinds").addEventListener("change", schedule);
$("window").addEventListener("change", schedule);
for (const id of ["actor", "nsonly"]) $(id).addEventListener("change", () => { renderEvents(); schedule(); });
$("objfilter").addEventListener("input", () => { renderEvents(); schedule(); });
$("clear").addEventListener("click", () => { $("actor").value = ""; $("objfilter").value = ""; renderEvents(); schedule(); });
$("close").addEventListener("click", () => { $("drawer").hidden = true; state.pageFor = ""; state.sel = ""; schedule(); });
$("course-open").addEventListener("click", () => ($("course-drawer").hidden ? openCourse() : ($("course-drawer").hidden = true)));
$("course-close").addEventListener("click", () => { $("course-drawer").hidden = true; });
applyLang();
connect();
