/* recipes-site: the model page's prefill/decode pools, loaded by site.js when the picker shows a
   pd_cluster rendering. Every word comes from deploy.json#pd_topology (render/pd_json.py): per
   pool, each node count x mode with plan.py's verdict; for a layout that starts, every node's
   lines, the router's endpoint lines, the variables and (decode) the plans of the memory panel.
   This script joins them as pd_json.py `joined` does (the tests hold the two equal), adds the two
   pools' GPUs and nodes, and keeps the choice in the URL (prefill_nodes, prefill_mode,
   decode_nodes, decode_mode; defaults omitted). */
(() => {
"use strict";
const c = window.pdHook(), { pd, PD, h, fill, SEP } = c;
const ROLES = ["prefill", "decode"];
let part = null, M = {}, eff = null;   /* M: what the URL or a click asked; eff: what is shown */
const T = i => part.texts[i];
function asked(search) {
  const q = new URLSearchParams(search), out = {};
  for (const role of ROLES) out[role] = { nodes: q.has(role + "_nodes") ? +q.get(role + "_nodes") : null, mode: q.get(role + "_mode") };
  return out;
}
const keyOf = r => [c.S().hardware, r.variant, r.strategy, r.node_count].join("/");   /* inputs.rendering_key */
const at = (E, role, i) => E[role].options[i];
/* the option a role shows: the one asked if it starts here, else the rendering's own */
function pick(E, role) {
  const R = E[role], n = R.modes.length, dflt = R.options.findIndex(o => o.default), want = M[role] || {};
  const nodes = want.nodes === null || want.nodes === undefined ? R.nodes[Math.floor(dflt / n)] : want.nodes;
  const mode = want.mode || R.modes[dflt % n];
  const i = R.nodes.indexOf(nodes) * n + R.modes.indexOf(mode);
  return R.nodes.includes(nodes) && R.modes.includes(mode) && R.options[i].procs ? i : dflt;
}
const apply = (base, changes) => { const out = base.slice(); for (const [i, x] of changes) out[i] = x; return out; };
const fillIn = (text, o) => text.replace(/\{(\w+)\}/g, (m, k) => k in o ? o[k] : m);
/* one pool's nodes as the rendering's JSON spells a process, and the picker's parts of each */
function pool(E, role, i) {
  const R = E[role], o = R.options[i], n = R.modes.length, first = R.lead.concat(o.procs[0][1]), L = part.labels;
  const nodes = R.nodes[Math.floor(i / n)], mode = R.modes[i % n], name = L[role];
  const where = nodes === 0 ? L.shared : nodes === 1 ? L.node : fillIn(L.nodes, { nodes });
  return o.procs.map(([head, serve, a, b], k) => {
    const lines = (k ? apply(first, serve) : first).map(T), [ex, dh] = part.heads[head], docker = dh.map(T);
    const id = k ? role + "-" + (k + 1) : role;
    return { json: { command: lines.join(SEP), docker_command: docker.concat(lines.slice(1)).join(SEP) },
      part: { id, label: k ? fillIn(L.worker, { role: name, i: k + 1 }) : fillIn(L.pool, { role: name, mode: mode.toUpperCase(), gpus: R.gpus[Math.floor(i / n)], where }),
        path: k ? ["pool_workers", role, k - 1, "command"] : [role, "command"], docker_path: k ? ["pool_workers", role, k - 1, "docker_command"] : [role, "docker_command"],
        exports: ex.map(x => T(x) + "\n").join(""), at: a, n: b, docker_at: docker.length } };
  });
}
/* the rendering with the chosen pools: site.js shows it as it shows any rendering */
pd.r = (r, how) => {
  const E = part && r.deploy_type === "pd_cluster" && part.renderings[keyOf(r)];
  eff = null;
  if (!E) return r;
  if (how !== "push") M = asked(how === "pop" ? location.search : pd.asked);
  const got = {}, dflt = {};
  for (const role of ROLES) { got[role] = pick(E, role); dflt[role] = E[role].options.findIndex(o => o.default); }
  eff = { E, got, dflt };
  if (got.prefill === dflt.prefill && got.decode === dflt.decode) return r;   /* as rendered */
  const P = pool(E, "prefill", got.prefill), Dn = pool(E, "decode", got.decode);
  const po = at(E, "prefill", got.prefill), dc = at(E, "decode", got.decode), rt = E.router;
  const intra = rt.intra || String(Math.max(po.dp_local || 0, dc.dp_local || 0, 1));
  const router = rt.head.concat(po.ends, dc.ends).map(T).concat(rt.tail.map(x => T(x).replace("{intra}", intra))).join(" \\\n  ");
  const ni = role => Math.floor(got[role] / E[role].modes.length);
  const gpus = E.prefill.gpus[ni("prefill")] + E.decode.gpus[ni("decode")], nodes = Math.ceil(E.prefill.used[ni("prefill")] + E.decode.used[ni("decode")]);
  const clean = p => { for (const k in p) if (p[k] === null) delete p[k]; return p; };
  const plan = clean(Object.assign({}, r.plan.default, dc.plan, { gpus, nodes })), by = {};
  for (const k in dc.by || {}) by[k] = clean(Object.assign({}, plan, E.states[k], dc.by[k]));
  const vars = [...new Set(po.vars.concat(dc.vars, rt.fixed).map(T))];
  const summary = (nodes > 1 ? fillIn(T(E.summary[1]), { gpus, nodes }) : T(E.summary[0])) + T(dc.layout);
  return Object.assign({}, r, { pdBase: r,
    prefill: Object.assign({}, r.prefill, P[0].json), decode: Object.assign({}, r.decode, Dn[0].json),
    pool_workers: { prefill: P.slice(1).map(x => x.json), decode: Dn.slice(1).map(x => x.json) },
    router: Object.assign({}, r.router, { command: router }), user_variables: vars, plan: { default: plan, keys: r.plan.keys, by },
    parts: Object.assign({}, r.parts, { summary, processes: P.concat(Dn).map(x => x.part) }) });
};
pd.query = set => {
  if (!eff) return;
  const { E, got, dflt } = eff;
  for (const role of ROLES) {
    const n = E[role].modes.length, [a, b] = [got[role], dflt[role]];
    if (Math.floor(a / n) !== Math.floor(b / n)) set(role + "_nodes", E[role].nodes[Math.floor(a / n)]);
    if (a % n !== b % n) set(role + "_mode", E[role].modes[a % n]);
  }
};
/* the Prefill and Decode rows: per pool, its node counts and (when the recipe allows several)
   modes; a layout that cannot start is dimmed with plan.py's reason; the GPUs of each pool and of
   the cluster */
function radio(value, on, text, small, why, title) {
  const b = h("button", { type: "button", class: "opt", role: "radio", "data-value": value, "aria-checked": String(on), tabindex: on ? 0 : -1 },
    h("b", { text }), small && h("small", { text: small }));
  if (why) { b.setAttribute("aria-disabled", "true"); b.title = why; } else if (title) b.title = title;
  return b;
}
const count = (n, w) => n + " " + w + (n === 1 ? "" : "s");
const axis = (id, label, ...kids) => h("div", { class: "axis" }, h("span", { class: "axis-label", id }, label), ...kids);
pd.render = r => {
  const nodesRow = c.P.querySelector("[data-axis=nodes]").parentNode, E = eff && eff.E;
  PD.hidden = !E; nodesRow.hidden = !!E;
  if (!E) return;
  const rows = [], L = part.labels;
  let total = 0, used = 0;
  for (const role of ROLES) {
    const R = E[role], n = R.modes.length, i = eff.got[role], ni = Math.floor(i / n), mi = i % n, o = R.options[i];
    total += R.gpus[ni]; used += R.used[ni];
    const why = k => R.options[k].procs ? "" : T(R.options[k].why);
    const tip = k => R.options[k].tokens ? `${R.options[k].tokens.toLocaleString("en-US")} KV tokens per GPU` : "";
    const kv = role === "decode" ? r.plan.default.max_tokens : o.tokens;   /* decode: the plan shown */
    rows.push(axis("ax-pd-" + role, L[role],
      h("div", { style: "display:flex;flex-wrap:wrap;gap:.35rem 1rem" },
        h("div", { role: "radiogroup", "aria-labelledby": "ax-pd-" + role, "data-axis": "pd-" + role + "-nodes", class: "opts" },
          R.nodes.map((x, k) => radio(x, k === ni, x === 0 ? "½ node" : count(x, "node"), count(R.gpus[k], "GPU") + (R.options[k * n + mi].declared ? " · recipe" : ""), why(k * n + mi), tip(k * n + mi)))),
        R.modes.length > 1 && h("div", { role: "radiogroup", "aria-label": L[role] + " mode", "data-axis": "pd-" + role + "-mode", class: "opts" },
          R.modes.map((x, k) => radio(x, k === mi, x.toUpperCase(), "", why(ni * n + k), tip(ni * n + k))))),
      h("p", { class: "hint", "data-pd-note": role, text: `${count(R.gpus[ni], "GPU")}` + (kv ? `, ${kv.toLocaleString("en-US")} KV tokens per GPU` : "") })));
  }
  rows.push(axis("ax-pd-total", "Cluster", h("p", { class: "hint", "data-pd-total": "", text: `${count(total, "GPU")} on ${count(Math.ceil(used), "node")}, and the router` })));
  fill(PD, rows);
};
PD.addEventListener("click", e => {
  const b = e.target.closest("[role=radio]");
  if (!b) return;
  e.stopPropagation();   /* not one of site.js's axes */
  if (b.getAttribute("aria-disabled") === "true" || b.getAttribute("aria-checked") === "true") return;
  const [, role, key] = b.closest("[data-axis]").dataset.axis.split("-"), E = eff.E, R = E[role], n = R.modes.length, i = eff.got[role];
  for (const x of ROLES) M[x] = { nodes: E[x].nodes[Math.floor(eff.got[x] / E[x].modes.length)], mode: E[x].modes[eff.got[x] % E[x].modes.length] };
  M[role] = { nodes: key === "nodes" ? +b.dataset.value : R.nodes[Math.floor(i / n)], mode: key === "mode" ? b.dataset.value : R.modes[i % n] };
  c.apply("push");
});
/* the Kubernetes, Monitoring, Bench and Tune panels hold the default pools (deploy.json's other
   parts): for another topology, a note saying so and the CLI line that prints the panel for it
   (the rendering's quoted `cli` + the pools' flags + the panel's flag); null for the default */
window.pdNote = kind => {
  if (!eff || (eff.got.prefill === eff.dflt.prefill && eff.got.decode === eff.dflt.decode)) return null;
  const L = part.labels, E = eff.E, o = {}, flag = L.flags[kind];
  const pool = (role, i) => { const R = E[role], n = R.modes.length; return [R.nodes[Math.floor(i / n)], R.modes[i % n]]; };
  for (const role of ROLES) [o[role + "_nodes"], o[role + "_mode"]] = pool(role, eff.got[role]);
  const dflt = ROLES.map(role => { const [x, m] = pool(role, eff.dflt[role]); return `${L[role]} ${x === 0 ? L.half : count(x, "node")} ${m.toUpperCase()}`; }).join(", ");
  const cli = flag && E.cli !== undefined && T(E.cli) + fillIn(L.pools, o) + " " + flag;
  return h("div", { class: "hint", "data-pd-elsewhere": kind }, h("p", { text: fillIn(L.elsewhere, { default: dflt }) + (cli ? " " + L.print : "") }),
    cli && h("pre", { tabindex: 0, text: cli }));
};
window.getPart(PD.dataset.src)
  .then(got => { part = got; c.apply("replace"); })
  .catch(e => { PD.hidden = false; PD.textContent = "Could not load the pool layouts (" + e.message + ")."; });
})();
