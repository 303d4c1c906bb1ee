/* recipes-site: the model page's "More options" row, loaded by site.js when the row is opened
   (or the URL names one of its options): KV offload, the container image, --max-model-len auto.
   Every word comes from api/v1/picker-options.json (render/advanced.py, render/kv_offload.py):
   the connector lines that follow the features, the `export` and `docker -e` lines, the
   companion tab, the labelled images, the reasons an option is ruled out. This script picks
   them, writes the host tier's byte count with the planner's rule (host_memory.py
   `config_bytes`, on the inputs kv_offload.py publishes), notes the host memory a Mooncake
   kv-store registers (host_memory.py `kv_store_text`), and keeps its choices in the URL (kv_offload, image, max_model_len). Mooncake pills
   pick the recipe's kv-store strategies (they are strategies of the same renderings). */
(() => {
"use strict";
const T = window.recipesPicker;
if (!T || T.ready) return;
T.ready = true;
const { D, KO, planOf } = T, GIB = 2 ** 30, gib = x => x.toFixed(1);
const q = new URLSearchParams(T.asked);
const M = { kvo: q.get("kv_offload"), image: q.get("image"), mml: q.get("max_model_len") === "auto", inst: +q.get("kv_instances") || 0 };
const isStore = s => (D.strategies[s] || {}).deploy_type === "kv_store_lb";
let doc = null;

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const k in attrs) if (attrs[k] !== false) el.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
  el.append(...kids);
  return el;
}
const row = (id, label, body, note) => h("div", { class: "axis" }, h("span", { class: "axis-label", id }, label), body, h("p", { class: "hint", "data-note": id }, note || ""));
const group = (id, axis) => h("div", { role: "radiogroup", "aria-labelledby": id, "data-axis": axis, class: "opts" });
function pill(v, on, label, reason) {   /* site.js `radio` */
  const b = h("button", { type: "button", class: "opt", role: "radio", "data-value": v, "aria-checked": String(on), tabindex: on ? 0 : -1 }, h("b", {}, label));
  if (reason) { b.setAttribute("aria-disabled", "true"); b.title = reason; }
  return b;
}

/* KV offload: "" when the option applies to this rendering, else why not */
function why(o, r) {
  const dt = (D.strategies[r.strategy] || {}).deploy_type, [S] = T.state();
  if (dt === "pd_cluster" || dt === "kv_store_lb" || r.parts.features_locked) return doc.layout_reason;
  return D.kvo[o.id] || (o.strategies && !o.strategies.includes(r.strategy) ? o.why_strategy : "")
    || (o.brands && !o.brands.includes(D.hardware[S.hardware].brand) ? o.why_brand : "");
}
/* a Mooncake store on a prefill/decode rendering (advanced.py `pd_pieces`), else null */
const pdView = r => (D.strategies[r.strategy] || {}).deploy_type === "pd_cluster";
function pdStore(r) { const k = M.kvo && doc.kv_stores[M.kvo]; return k && k.pd && pdView(r) && !r.parts.features_locked ? k.pd : null; }
function kvo(r) { const o = M.kvo && doc.kv_offload.find(x => x.id === M.kvo); return o && !why(o, r) ? o : null; }
function bytes(o, p) {   /* host_memory.py `config_bytes` */
  const s = o.size, above = p.kv_cache_bytes_per_gpu ? (Math.floor(p.kv_cache_bytes_per_gpu / GIB) + 1) * GIB : 0;
  return s.per === "rank" ? Math.max(s.floor_bytes, above) : Math.max(s.floor_bytes, above * (p.tp || 1) * (p.pp || 1));
}
/* host_memory.py `_registered` and `_store_service`: the phrases both store notes share */
const registered = (k, whose) => `Host memory it registers: ${gib(k.per_gpu_bytes / GIB)} GiB per GPU${whose} (` + (k.segment_bytes ? `${gib(k.segment_bytes / GIB)} GiB global_segment_size lent to the pool`
  : "no segment (global_segment_size 0: the store service holds the pool)") + `, plus a ${gib(k.local_buffer_bytes / GIB)} GiB local_buffer_size), `;
const storeService = k => k.store_segment_bytes ? ` The store service registers ${gib(k.store_segment_bytes / GIB)} GiB on each store node.` : "";
/* host_memory.py `kv_store_text`: the host memory a kv-store layout's GPUs register, n instances */
function storeNote(k, p, r, n) {
  const per = p.gpus / (p.nodes || 1), g = k.per_gpu_bytes;
  return registered(k, "") + `${gib(g * per / GIB)} GiB on each node, ${gib(g * n * r.node_count * per / GIB)} GiB over ${n} instance${n > 1 ? "s" : ""}.` + storeService(k);
}
/* host_memory.py `pd_store_text`: what every GPU of both pools registers (the plan's GPUs and nodes) */
function pdNote(k, p) {
  const g = k.per_gpu_bytes, n = p.nodes || 1;
  return registered(k, " of both pools") + `${gib(Math.floor(g * p.gpus / n) / GIB)} GiB on each node, ${gib(g * p.gpus / GIB)} GiB over the ${p.gpus} GPUs of the prefill and decode pools.`
    + storeService(k);
}
/* the image choices of this rendering's image family (the first is its own), or none if pinned */
const images = r => doc.images[r.docker_image] || null;
/* Mooncake instances: the URL's count within 1..16, else the kv-store's default */
function instances(r) { const k = doc.kv_stores[r.strategy]; return !k ? 0 : M.inst >= 1 && M.inst <= k.routers.length ? M.inst : k.default; }
function image(r) { const c = images(r); return c && M.image && M.image !== r.docker_image && c.some(x => x[1] === M.image) ? M.image : null; }

const K = {
  /* what site.js `commandParts` joins: lines after the features, the line edit, exports, docker head */
  extra(r, ch, p) {   /* p: the process; a store's line is its pool's (pd_store.py `with_store`) */
    const o = kvo(r), a = doc.max_model_len_auto, st = pdStore(r), sl = st && p ? st.lines[p.id.split("-")[0]] || [] : [];
    return {
      lines: o ? (o.size ? o.lines.map(l => l.replace("{bytes}", String(bytes(o, planOf(r, ch))))) : o.lines) : sl,
      edit: lines => (lines = st ? lines.filter(l => !l.startsWith("--kv-transfer-config ") || sl.includes(l)) : lines,
        M.mml ? lines.filter(l => !l.startsWith(a.replaces)).concat(a.line) : lines),
      exports: o ? o.exports : st ? st.exports : "",
    };
  },
  /* a docker head's lines (a process's, or the throughput plan's template): -e lines before
     "<image> <model>", and the chosen image */
  head(r, head) {
    const o = kvo(r) || pdStore(r), img = image(r), last = head.length - 1;
    if (o) head.splice(last, 0, ...o.docker_env);
    const at = head.length - 1;
    if (img && head[at].startsWith(r.docker_image + " ")) head[at] = img + head[at].slice(r.docker_image.length);
  },
  /* the companion tab first; a kv-store's router as its instance count has it */
  tabs(r, list) {
    const o = kvo(r), k = doc.kv_stores[r.strategy], n = instances(r), st = pdStore(r);
    if (o && o.tab) list = [o.tab].concat(list);
    if (st) list = st.tabs.concat(list);
    if (k && n !== k.default) {
      const text = k.routers[n - 1];
      list = list.filter(t => t.id !== "router").concat(text ? [{ id: "router", label: "Router", text }] : []);
    }
    return list;
  },
  change(w, axis, value) {
    if (axis === "inst") { M.inst = +value; return; }
    const [S] = T.state();
    if (axis === "image") { M.image = value; return; }
    if (pdView(S) && (value === "off" || (doc.kv_stores[value] || {}).pd)) { M.kvo = value === "off" ? null : value; return; }   /* a store on the pools */
    if (isStore(value)) { w.strategy = value; w.nodes = undefined; return; }   /* a Mooncake pill */
    M.kvo = value === "off" ? null : value;
    if (isStore(S.strategy)) { w.strategy = undefined; w.nodes = undefined; }
  },
  query(set) {
    const r = T.state()[1].r;
    if (M.kvo && r && (kvo(r) || pdStore(r) || !pdView(r))) set("kv_offload", M.kvo);
    if (M.image) set("image", M.image);
    if (M.mml) set("max_model_len", "auto");
    if (M.inst && doc.kv_stores[T.state()[0].strategy]) set("kv_instances", M.inst);
  },
  render(r, p) {
    const [S, X] = T.state(), o = kvo(r), stores = pdView(r) ? [] : X.strategies.filter(isStore), inStore = stores.includes(S.strategy);
    const rows = KO.querySelector("[data-more-rows]");
    if (!rows.querySelector("[data-axis]")) {
      const a = doc.max_model_len_auto;
      rows.replaceChildren(row("ax-kvo", "KV offload", group("ax-kvo", "kvo")), row("ax-inst", "Instances", group("ax-inst", "inst")),
        row("ax-image", "Image", group("ax-image", "image")),
        row("ax-mml", "Max length", h("div", { class: "feats" }, h("label", { title: a.description }, h("input", { type: "checkbox", "data-mml": true }), " ", h("code", {}, a.label))), a.description));
      rows.querySelector("[data-mml]").addEventListener("change", e => { M.mml = e.target.checked; T.render(); history.replaceState(null, "", T.query()); });
    }
    const st = pdStore(r), onPools = pdView(r) ? Object.keys(doc.kv_stores).filter(s => doc.kv_stores[s].pd) : [];
    rows.querySelector("[data-axis=kvo]").replaceChildren(pill("off", !o && !inStore && !st, "Off"),
      ...doc.kv_offload.map(x => pill(x.id, x === o, x.label, why(x, r))), ...stores.map(s => pill(s, s === S.strategy, D.strategies[s].label)),
      ...onPools.map(s => pill(s, st === doc.kv_stores[s].pd, doc.kv_stores[s].pd.label, r.parts.features_locked && doc.locked_reason)));
    let note = o ? o.description : inStore ? D.notes[S.strategy] || "" : st ? st.description : "";
    const s = o && (o.size || o.staging);
    if (s) {   /* host_memory.py `offload_text` */
      const b = o.size ? bytes(o, p) : s.floor_bytes, perGpu = s.per === "rank" ? b : b / ((p.tp || 1) * (p.pp || 1));
      note += ` Host memory it takes: ${gib(perGpu / GIB)} GiB per GPU, ${gib(perGpu * p.gpus / (p.nodes || 1) / GIB)} GiB on each node`
        + ((p.nodes || 1) > 1 ? `, ${gib(perGpu * p.gpus / GIB)} GiB in all` : "") + ` (${s.key} = ${b}: `
        + (!o.size ? "the vocabulary's staging tier for the slower tiers behind it)." : (b > s.floor_bytes ? `raised from the vocabulary's ${gib(s.floor_bytes / GIB)} GiB to stay above`
        : "the vocabulary's budget, above") + ` the ${gib((p.kv_cache_bytes_per_gpu || 0) / GIB)} GiB KV cache per GPU).`);
    }
    const kh = inStore && (doc.kv_stores[S.strategy] || {}).host;
    if (kh) note += " " + storeNote(kh, p, r, instances(r));
    const si = st && st.install[D.hardware[S.hardware].brand.toLowerCase()];   /* hardware.py `image_brand` */
    if (st) note += " " + pdNote(doc.kv_stores[M.kvo].host, p) + (si ? " Install first: " + si : "");
    if (o && o.install) note += " Install first: " + o.install;
    rows.querySelector("[data-note=ax-kvo]").textContent = note;
    const k = doc.kv_stores[r.strategy], n = instances(r), instRow = rows.querySelector("[data-axis=inst]");
    instRow.parentNode.hidden = !k;
    if (k) {
      instRow.replaceChildren(...k.routers.map((_, i) => pill(i + 1, i + 1 === n, String(i + 1))));
      const per = p.gpus / (p.nodes || 1);
      rows.querySelector("[data-note=ax-inst]").textContent = `${n} instance${n > 1 ? "s" : ""} × ${r.node_count} node${r.node_count > 1 ? "s" : ""} × ${per} GPUs = ${n * r.node_count * per} GPUs`
        + (n > 1 ? "; the Router tab spreads requests over them by KV-cache affinity." : "; one instance needs no router.");
    }
    const c = images(r), img = image(r) || r.docker_image, fixed = r.parts.features_locked ? doc.locked_reason : "";
    rows.querySelector("[data-axis=image]").parentNode.hidden = !r.docker_image;
    rows.querySelector("[data-axis=image]").replaceChildren(...(c ? c.map(([label, x]) => pill(x, x === img, label, x !== img && fixed)) : [pill(r.docker_image, true, doc.pinned)]));
    rows.querySelector("[data-note=ax-image]").textContent = img + " · applies to the docker run form";
    rows.querySelector("[data-mml]").disabled = !!fixed;
    rows.querySelector("[data-mml]").checked = M.mml;
    KO.querySelector("[data-more-state]").textContent = [o ? o.label : inStore ? D.strategies[S.strategy].label : st ? st.label : "",
      image(r) ? c.find(x => x[1] === img)[0] : "", M.mml ? "--max-model-len auto" : ""].filter(Boolean).join(" · ") || "KV offload, image, --max-model-len auto";
  },
};
/* deploy.json's Kubernetes manifests are the rendering's as published: with options of this row
   on, the tab names those it leaves out (site.js docTabs shows the note) */
window.moreNote = kind => {
  const r = doc && kind === "kubernetes" && T.state()[1].r, o = r && (kvo(r) || pdStore(r)), c = r && images(r);
  const chosen = r ? [o && o.label, image(r) && c.find(x => x[1] === image(r))[0], M.mml && doc.max_model_len_auto.label].filter(Boolean) : [];
  return chosen.length ? h("p", { class: "hint", "data-more-elsewhere": kind }, doc.k8s_note.replace("{chosen}", chosen.join(", "))) : null;
};
fetch(T.root + "api/v1/picker-options.json", { cache: "no-cache" })   /* advanced.py API_PATH */
  .then(x => { if (!x.ok) throw new Error("HTTP " + x.status); return x.json(); })
  .then(got => { doc = got; T.set(K); })
  .catch(e => { KO.querySelector("[data-more-rows]").textContent = "Could not load these options (" + e.message + ")."; });
})();
