/* recipes-site: the model page's KV-offload row, loaded by site.js when the row is opened (or the
   URL names an option). Every piece comes from api/v1/kv_offload.json (render/kv_offload.py):
   the lines after the features, the `export` and `docker -e` lines, the companion process, the
   reasons a pill is ruled out. This script only picks them and writes the host tier's byte
   count with the arithmetic kv_offload.py `host_bytes` publishes. Mooncake pills pick the
   recipe's kv-store strategies (they are strategies of the same renderings). */
(() => {
"use strict";
const T = window.recipesPicker;
if (!T || T.ready) return;
T.ready = true;
const { D, KO, planOf } = T, GIB = 2 ** 30, gib = x => x.toFixed(1);
function h(tag, attrs, text) { const el = document.createElement(tag); for (const k in attrs) el.setAttribute(k, attrs[k]); if (text) el.append(text); return el; }
const isStore = s => (D.strategies[s] || {}).deploy_type === "kv_store_lb";
let doc = null;

function why(o, r) {   /* "" when the option applies to this rendering */
  const dt = (D.strategies[r.strategy] || {}).deploy_type, [S] = T.state();
  if (dt === "pd_cluster" || dt === "kv_store_lb" || r.parts.features_locked) return doc.layout_reason;
  return D.kvo[o.id] || (o.strategies && !o.strategies.includes(r.strategy) ? o.why_strategy : "")
    || (o.brands && !o.brands.includes(D.hardware[S.hardware].brand) ? o.why_brand : "");
}
function bytes(o, p) {   /* kv_offload.py `host_bytes` */
  const s = o.size, above = p.kv_cache_bytes_per_gpu ? (Math.floor(p.kv_cache_bytes_per_gpu / GIB) + 1) * GIB : 0;
  return s.per === "rank" ? Math.max(s.floor_bytes, above) : Math.max(s.floor_bytes, above * (p.tp || 1) * (p.pp || 1));
}
const K = {
  pick(r) {
    const [S] = T.state(), o = S.kvo && doc.options.find(x => x.id === S.kvo);
    return o && !why(o, r) ? o : null;
  },
  lines: (o, r, ch) => o.size ? o.lines.map(l => l.replace("{bytes}", String(bytes(o, planOf(r, ch))))) : o.lines,
  change(w, value) {   /* a Mooncake pill picks its kv-store strategy; the others leave one */
    const [S] = T.state();
    if (isStore(value)) { w.strategy = value; w.nodes = undefined; return; }
    w.kv_offload = value === "off" ? undefined : value;
    if (isStore(S.strategy)) { w.strategy = undefined; w.nodes = undefined; }
  },
  render(r, p) {
    const [S, X] = T.state(), ko = K.pick(r), stores = X.strategies.filter(isStore);
    const pill = (v, on, label, reason) => {   /* site.js `radio` */
      const b = h("button", { type: "button", class: "opt", role: "radio", "data-value": v, "aria-checked": String(on), tabindex: on ? 0 : -1 });
      b.append(h("b", {}, label));
      if (reason) { b.setAttribute("aria-disabled", "true"); b.title = reason; }
      return b;
    };
    KO.querySelector("[data-axis=kvo]").replaceChildren(...[pill("off", !ko && !stores.includes(S.strategy), "Off"),
      ...doc.options.map(o => pill(o.id, o === ko, o.label, why(o, r))),
      ...stores.map(s => pill(s, s === S.strategy, D.strategies[s].label))]);
    KO.querySelector("[data-kvo-state]").textContent = ko ? ko.label : stores.includes(S.strategy) ? D.strategies[S.strategy].label : "Off";
    let note = ko ? ko.description : stores.includes(S.strategy) ? D.notes[S.strategy] || "" : "";
    if (ko && ko.size) {
      const b = bytes(ko, p), perGpu = ko.size.per === "rank" ? b : b / ((p.tp || 1) * (p.pp || 1));
      note += ` Host memory it takes: ${gib(perGpu / GIB)} GiB per GPU, ${gib(perGpu * p.gpus / (p.nodes || 1) / GIB)} GiB on each node`
        + ` (${ko.size.key} = ${b}: ` + (b > ko.size.floor_bytes ? `raised from the vocabulary's ${gib(ko.size.floor_bytes / GIB)} GiB to stay above`
        : `the vocabulary's budget, above`) + ` the ${gib((p.kv_cache_bytes_per_gpu || 0) / GIB)} GiB KV cache per GPU).`;
    }
    if (ko && ko.install) note += " Install first: " + ko.install;
    KO.querySelector("[data-kvo-note]").textContent = note;
  },
};
fetch(KO.dataset.src, { cache: "no-cache" })
  .then(x => { if (!x.ok) throw new Error("HTTP " + x.status); return x.json(); })
  .then(got => { doc = got; T.set(K); })
  .catch(e => { KO.querySelector("[data-kvo-note]").textContent = "Could not load the KV-offload options (" + e.message + ")."; });
})();
