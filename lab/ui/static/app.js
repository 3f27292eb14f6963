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

const state = {
  objects: new Map(),   // uid → summary
  events: [],           // timeline lines, oldest first
  reports: [],          // scenario report entries
  actors: new Set(),
  ns: "default",
  sel: "",              // selected object's uid
  pageFor: "",          // uid whose page is open
};

// ---------- the stream ----------

function connect() {
  const es = new EventSource("api/stream");
  es.onopen = () => { $("conn").textContent = "live"; $("conn").className = "conn live"; };
  es.onerror = () => { $("conn").textContent = "disconnected, retrying…"; $("conn").className = "conn down"; };
  es.onmessage = (m) => handle(JSON.parse(m.data));
}

function handle(m) {
  switch (m.type) {
    case "snapshot":
      state.objects = new Map(m.objects.map((o) => [o.uid, o]));
      state.events = m.events || [];
      state.actors = new Set(state.events.map((e) => e.actor));
      state.reports = [];
      for (const r of m.reports || []) addReport(r, false);
      renderScenario();
      renderNamespaces();
      renderActors();
      renderEvents();
      break;
    case "object": {
      const o = m.object;
      const known = state.objects.get(o.uid);
      state.objects.set(o.uid, o);
      if (o.kind === "Namespace" && !known) renderNamespaces();
      if (o.uid === state.pageFor && (!known || known.changes !== o.changes || known.gone !== o.gone)) refreshPage();
      break;
    }
    case "event": {
      // The lab's timeline comes in the cluster's order (etcd revision); a
      // line that came late goes in its place, by its revision.
      const e = m.event;
      let i = state.events.length;
      if (e.late && e.revision) while (i > 0 && (state.events[i - 1].revision || 0) > e.revision) i--;
      const atEnd = i === state.events.length;
      state.events.splice(i, 0, e);
      if (state.events.length > 2000) state.events.shift();
      if (!state.actors.has(e.actor)) { state.actors.add(e.actor); renderActors(); }
      if (atEnd) appendEvent(e); else renderEvents();
      break;
    }
    case "report":
      addReport(m.report, true);
      renderScenario();
      break;
  }
  schedule();
}

let pending = false;
function schedule() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; renderGraph(); renderLanes(); });
}

// ---------- namespaces ----------

function renderNamespaces() {
  const sel = $("ns");
  const names = [...state.objects.values()].filter((o) => o.kind === "Namespace" && !o.gone).map((o) => o.name);
  if (state.ns !== CLUSTER && !names.includes(state.ns)) names.push(state.ns);
  names.sort();
  sel.replaceChildren(...names.map((n) => new Option(n, n)), new Option("(cluster-scoped)", CLUSTER));
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

function renderGraph() {
  const svg = $("graph");
  const shown = [...state.objects.values()].filter(visible);
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
    if (kids.length === 0) { row++; return; }
    for (const k of kids) place(k, depth + 1, seen);
  };
  const seen = new Set();
  for (const r of roots) place(r, 0, seen);

  const nodes = [...state.objects.values()].filter((o) => o.kind === "Node" && !o.gone).sort((a, b) => a.name.localeCompare(b.name));
  const nodeX = 10 + (depthMax + 1) * COL + 40;
  nodes.forEach((n, i) => pos.set(n.uid, { x: nodeX, y: 10 + i * ROW }));
  const nodeByName = new Map(nodes.map((n) => [n.name, n]));

  const parts = [];
  for (const o of shown) {
    const p = pos.get(o.uid);
    if (!p) continue;
    if (o._parent && pos.has(o._parent)) parts.push(edge(pos.get(o._parent), p, "edge owner", o._parent, o.uid));
    const node = o.kind === "Pod" && o.node && nodeByName.get(o.node);
    if (node) parts.push(edge(p, pos.get(node.uid), "edge node", o.uid, node.uid));
  }
  for (const o of [...shown, ...nodes]) parts.push(box(o, pos.get(o.uid)));
  if (shown.length === 0) {
    const t = document.createElementNS(SVG, "text");
    t.setAttribute("x", 10); t.setAttribute("y", 30); t.setAttribute("class", "empty");
    t.textContent = state.ns === CLUSTER ? "nothing cluster-scoped to show" : `namespace ${state.ns} is empty: try kubectl create deployment web --image=nginx --replicas=3`;
    parts.push(t);
  }
  svg.replaceChildren(...parts);
  const h = Math.max(row, nodes.length, 1) * ROW + 20;
  svg.setAttribute("width", nodeX + BOX_W + 20);
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
  title.textContent = `${o.kind} ${o.namespace ? o.namespace + "/" : ""}${o.name}\n${o.state}${o.finalizers ? "\nfinalizers: " + o.finalizers.join(", ") : ""}\n${o.changes} change(s) seen; click for its page`;
  const line = (cls, y, text) => {
    const t = document.createElementNS(SVG, "text");
    t.setAttribute("x", 8); t.setAttribute("y", y); t.setAttribute("class", cls);
    t.textContent = text;
    return t;
  };
  g.append(title, r, line("kind", 13, o.kind + (o.finalizers && !o.deleting ? "  · finalizer" : "")), line("name", 28, clip(o.name, 30)), line("state", 42, clip(o.state || "", 34)));
  g.addEventListener("click", () => select(o.uid));
  return g;
}

// ---------- the timeline ----------

function key(kind, ns, name) { return `${kind}/${ns || ""}/${name}`; }

function objectOf(e) {
  let found = null;
  for (const o of state.objects.values()) {
    if (o.kind === e.kind && (o.namespace || "") === (e.namespace || "") && o.name === e.name) {
      if (!found || (found.gone && !o.gone)) found = o;
    }
  }
  return found;
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
  sel.replaceChildren(new Option("all", ""), ...[...state.actors].sort().map((a) => new Option(a, a)));
  sel.value = v;
}

function eventItem(e) {
  const li = document.createElement("li");
  Object.assign(li.dataset, { actor: e.actor, verb: e.verb, kind: e.kind, name: e.name, namespace: e.namespace || "", revision: e.revision || "" });
  if (e.late) { li.classList.add("late"); li.title = "arrived late: shown in its place by its revision"; }
  const t = new Date(e.time);
  const time = document.createElement("time");
  time.textContent = t.toTimeString().slice(0, 8) + "." + String(t.getMilliseconds()).padStart(3, "0");
  const actor = document.createElement("span"); actor.className = "actor"; actor.textContent = e.actor;
  const verb = document.createElement("span"); verb.className = "verb v-" + e.verb; verb.textContent = e.verb;
  const obj = document.createElement("span"); obj.className = "obj";
  obj.textContent = `${e.kind.toLowerCase()}/${e.name}` + (e.namespace && state.ns !== e.namespace ? ` (${e.namespace})` : "");
  const detail = document.createElement("span"); detail.className = "detail"; detail.textContent = e.detail || "";
  li.append(time, actor, verb, obj, detail);
  const o = objectOf(e);
  if (o && o.uid === state.sel) li.classList.add("sel");
  li.addEventListener("click", () => { const o = objectOf(e); if (o) select(o.uid); });
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

function appendEvent(e) {
  if (!matches(e)) return;
  const list = $("events");
  list.prepend(eventItem(e));
  while (list.childElementCount > 500) list.lastElementChild.remove();
}

const LABEL_W = 170, LANE_H = 18;

function renderLanes() {
  const svg = $("lanes");
  const width = svg.clientWidth || 800;
  const now = Date.now(), WINDOW_MS = Number($("window").value);
  const recent = state.events.filter((e) => now - Date.parse(e.time) < WINDOW_MS && matches(e));
  const lanes = [...new Set(recent.map((e) => e.actor))].sort();
  const parts = [];
  lanes.forEach((a, i) => {
    const y = 14 + i * LANE_H;
    const l = document.createElementNS(SVG, "line");
    l.setAttribute("x1", LABEL_W); l.setAttribute("x2", width); l.setAttribute("y1", y); l.setAttribute("y2", y);
    l.setAttribute("class", "lane");
    const t = document.createElementNS(SVG, "text");
    t.setAttribute("x", 4); t.setAttribute("y", y + 4); t.setAttribute("class", "lane-label");
    t.textContent = clip(a, 26);
    parts.push(l, t);
  });
  for (const e of recent) {
    const x = LABEL_W + (width - LABEL_W - 8) * (1 - (now - Date.parse(e.time)) / WINDOW_MS);
    const c = document.createElementNS(SVG, "circle");
    c.setAttribute("cx", x.toFixed(1)); c.setAttribute("cy", 14 + lanes.indexOf(e.actor) * LANE_H);
    const o = objectOf(e);
    c.setAttribute("r", o && o.uid === state.sel ? 7 : 5);
    c.setAttribute("class", "v-" + e.verb);
    const title = document.createElementNS(SVG, "title");
    title.textContent = `${e.actor} ${e.verb} ${e.kind.toLowerCase()}/${e.name} ${e.detail || ""}`;
    c.append(title);
    c.addEventListener("click", () => { const o = objectOf(e); if (o) select(o.uid); });
    parts.push(c);
  }
  if (lanes.length === 0) {
    const t = document.createElementNS(SVG, "text");
    t.setAttribute("x", 4); t.setAttribute("y", 14); t.setAttribute("class", "lane-label");
    t.textContent = "lanes per actor: nothing happened in this window";
    parts.push(t);
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

let fetching = false, again = false;
async function refreshPage() {
  if (fetching) { again = true; return; }
  fetching = true;
  try {
    const uid = state.pageFor;
    const r = await fetch("api/object?uid=" + encodeURIComponent(uid));
    if (uid === state.pageFor) renderPage(r.ok ? await r.json() : null, r.ok ? "" : await r.text());
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
      el("span", { className: "actor" }, c.actor), " ",
      el("span", { className: "verb v-" + c.verb }, c.verb), " ",
      el("span", { className: "detail" }, c.detail || "")));
    if (c.diff) d.append(diffPre(c.diff));
    else d.append(el("p", { className: "msg" }, c.verb === "EXISTED" ? "It was there when crdlab started watching." : c.verb === "DELETE" ? "Deleted." : "No diff: the version before it is not kept."));
    history.append(d);
  }
  if (history.firstChild && p.history[0].diff) history.firstChild.open = true;
  const managers = el("table", {}, el("tr", {}, el("th", {}, "manager"), el("th", {}, "who"), el("th", {}, "operation"), el("th", {}, "subresource"), el("th", {}, "time")));
  for (const m of p.managers || []) {
    managers.append(el("tr", {}, el("td", {}, m.manager), el("td", {}, m.actor), el("td", {}, m.operation), el("td", {}, m.subresource || ""), el("td", {}, m.time || "")));
  }
  const only = el("button", { type: "button", textContent: "show only its timeline lines" });
  only.addEventListener("click", () => { $("objfilter").value = `${s.kind}/${s.name}`; renderEvents(); schedule(); });
  page.replaceChildren(
    el("h1", {}, `${s.kind} ${s.name}`),
    el("p", {}, `${s.namespace ? "namespace " + s.namespace + " · " : ""}${s.apiVersion} · ${s.gone ? "deleted" : s.state || ""}`),
    only,
    el("h3", {}, `History: ${p.history.length} change(s), newest first${p.dropped ? ` (${p.dropped} older not kept)` : ""}`),
    history,
    el("h3", {}, "Managed fields: who owns which fields"),
    managers,
    el("h3", {}, "YAML now"),
    el("pre", { id: "yaml" }, p.yaml),
  );
}

// ---------- the scenario ----------

function addReport(r, live) {
  if (r.type === "scenario") {
    state.reports = [];
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
        parts.push(el("h3", {}, `${r.scenario}: ${r.title || ""}`), el("p", { className: "concept" }, r.text || ""), el("p", { className: "msg" }, "namespace " + r.namespace), steps);
        break;
      case "narrate":
        steps.append(el("div", { className: "narrate" }, r.text));
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
        task.box = el("div", { className: "task" }, el("div", { className: "tasklabel" }, r.description || ""),
          el("div", { className: "tasktext" }, r.text || ""), task.hints, task.check);
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
        task.check.replaceChildren(r.status === "passed" ? "✓" : `… ${r.description || ""}: ${r.text || ""}`);
        break;
      }
      case "event": {
        if (!r.event || !r.step) break;
        const e = r.event;
        const line = el("li", { className: e.late ? "late" : "" }, `${e.actor} ${e.verb} ${e.kind.toLowerCase()}/${e.name}${e.detail ? "  " + e.detail : ""}`);
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
        parts.push(el("p", { className: "result " + r.status }, `${r.status.toUpperCase()} ${r.scenario}${r.text ? ": " + r.text : ""}`));
        if (r.description) parts.push(el("p", {}, r.description));
        break;
    }
  }
  box.replaceChildren(...parts);
}

// ---------- controls ----------

$("ns").addEventListener("change", (e) => selectNamespace(e.target.value));
$("allkinds").addEventListener("change", schedule);
$("window").addEventListener("change", schedule);
for (const id of ["actor", "nsonly"]) $(id).addEventListener("change", () => { renderEvents(); schedule(); });
$("objfilter").addEventListener("input", () => { renderEvents(); schedule(); });
$("clear").addEventListener("click", () => { $("actor").value = ""; $("objfilter").value = ""; renderEvents(); schedule(); });
$("close").addEventListener("click", () => { $("drawer").hidden = true; state.pageFor = ""; state.sel = ""; schedule(); });
connect();
