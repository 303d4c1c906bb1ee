/* recipes-site: the model page's Verify, Bench and Tune panels, loaded by site.js on the first
   click. Everything shown comes from deploy.json#verify (render/verify_json.py): the curl and bench
   texts, the tuning table's rows, the command lines of each option and the plan's coefficients.
   The tuning table swaps Python's lines of the tuned flags into the command and does tuning.py
   `apply`'s arithmetic, so the memory panel shows what plan.py computes for the tuned command. */
(() => {
"use strict";
const c = window.vtHook(), { vt, vtBar, h, fill, fmt, SEP, GIB, kvFit } = c;
const vtPop = c.P.querySelector("[data-vt-pop]");
let V = null, pick, pickOf;
const entry = () => { const r = c.X().r; return V.hardware[c.S().hardware].renderings[r.variant + "|" + r.strategy + "|" + r.node_count] || {}; };
/* the shown rendering's tuning data with its value sets; null when a feature state has a plan of its own */
function tune() {
  const S = c.S(), r = c.X().r, T = V && entry().tune, keys = r.plan.keys || [];
  if (!T || (window.pdNote && window.pdNote("tune")) || (r.plan.by || {})[c.featureKey(c.choose(r, S.on, S.modes).filter(([f]) => keys.includes(f.name)))]) return null;
  if (pickOf !== T) { pickOf = T; pick = Object.assign({}, T.at); }
  return Object.assign({}, T, { v: V.values[T.v] });
}
const tuned = () => { const T = tune(); return T && Object.keys(pick).some(k => pick[k] !== T.at[k]) ? T : null; };
/* tuning.py `apply`: the same operations in the same order as plan.py */
vt.plan = p0 => {
  const T = tuned();
  if (!T) return p0;
  const t = pick.t, m = pick.m, L = T.v.L[pick.L] || T.c, b = V.hardware[c.S().hardware].r * T.v.u[pick.u];
  const dw = T.dw ? T.dw[t] : 0, kv = b - T.w[t] - T.o[t][m] - dw;
  const p = Object.assign({}, p0, { null_block_bytes: 0, windows_per_gpu: [], state_bytes_per_sequence_per_gpu: 0 }, V.kv[T.k[t][pick.d][m]], {
    gpus: p0.gpus / p0.tp * T.v.t[t], tp: T.v.t[t], budget_gib_per_gpu: b, weights_gib_per_gpu: T.w[t] + dw, overhead_gib_per_gpu: T.o[t][m],
    kv_cache_bytes_per_gpu: Math.max(0, Math.floor(kv * GIB)), context_length: L, max_tokens: null });
  p.concurrency = kvFit.requests(p, L);
  p.verdict = p.weights_gib_per_gpu > b ? "over" : kv <= 0 ? "no_kv" : kvFit.longest(p, 1) < L ? "short" : "fits";
  return p;
};
/* each tuned flag: its lines (any spelling) give way to the option's line, or to none (vLLM's default) */
vt.text = text => {
  const T = tuned(), lines = text.split(SEP);
  if (T) for (const row of V.rows) {
    const k = row.key, line = V.lines[k][T.v[k][pick[k]]];
    if (pick[k] === T.at[k]) continue;
    let at = lines.length;
    for (let i = at - 1; i > 0; i--) if (row.names.includes(lines[i].split(/[ =]/)[0])) lines.splice(at = i, 1);
    if (line) lines.splice(at, 0, line);
  }
  return lines.join(SEP);
};
vt.tuned = () => tuned() && V.notes.plan;
vt.render = () => {
  for (const b of vtBar.querySelectorAll("[data-vt]")) b.setAttribute("aria-expanded", String(b.dataset.vt === vt.on));
  vtPop.hidden = !vt.on;
  if (!vt.on || !V) return;
  const e = entry(), T = tune(), N = V.notes;
  const pre = t => [h("pre", { id: "vt-pre", tabindex: 0, text: t }), h("button", { type: "button", class: "copy", "data-copy-from": "vt-pre", text: "Copy" })];
  const label = (row, v) => v || (row.key === "m" ? `default (${fmt(V.hardware[c.S().hardware].m0)})` : `full (${fmt(T.c)})`);
  const pd = window.pdNote && vt.on !== "curl" && window.pdNote(vt.on);   /* static/pd.js: another PD topology */
  fill(vtPop, vt.on === "curl" ? [h("p", { text: N.curl }), ...pre(V.texts[e.curl])]
    : vt.on === "bench" ? (pd ? [pd] : []).concat(e.bench ? [h("p", { text: N.bench }), ...pre(V.texts[e.bench[1]] + "\n" + V.texts[e.bench[0]])] : [h("p", { text: N.no_bench })])
    : [h("table", {}, V.rows.map(row => h("tr", {}, h("td", {}, h("code", { text: row.flag })),
        h("td", {}, T ? h("select", { "data-tune": row.key, "aria-label": row.flag },
          T.v[row.key].map((v, i) => h("option", { value: i, selected: i === pick[row.key], text: label(row, v) }))) : ""),
        h("td", { text: `Default ${row.default}. ${row.meaning} ${row.direction}` })))),
      T ? h("button", { type: "button", class: "copy", "data-tune-reset": true, text: "Reset" }) : pd || h("p", { text: N.no_tune })]);
};
vtBar.addEventListener("click", ev => {
  const b = ev.target.closest("[data-vt]");
  if (b && V) { vt.on = vt.on === b.dataset.vt ? null : b.dataset.vt; vt.render(); }
});
vtPop.addEventListener("change", ev => { pick[ev.target.dataset.tune] = +ev.target.value; c.render(); });
vtPop.addEventListener("click", ev => { if (ev.target.closest("[data-tune-reset]")) { pickOf = null; c.render(); } });
c.P.addEventListener("keydown", ev => { if (ev.key === "Escape" && vt.on) { vt.on = null; vt.render(); } });
vtPop.hidden = false;
vtPop.textContent = "Loading…";
window.getPart(vtBar.dataset.src)
  .then(doc => { V = doc; c.render(); }, err => { vtPop.textContent = `Could not load ${vtBar.dataset.src} (${err.message}).`; });
})();
