/* recipes-site: the one script of every page. It never decides a command: the model page
   selects renderings from the API hardware documents and swaps the feature block of each
   rendered command for the selected features' precomputed lines (render/picker.py). */
(() => {
"use strict";
const d = document, root = d.documentElement;
const $ = (s, r = d) => r.querySelector(s), $$ = (s, r = d) => Array.from(r.querySelectorAll(s));
const store = (k, v) => { try { if (v === undefined) return localStorage.getItem(k); localStorage.setItem(k, v); } catch (e) { /* private mode */ } return null; };
const data = id => { const el = d.getElementById(id); return el ? JSON.parse(el.textContent) : null; };
/* the path the site is served under ("/", or "/recipes/" on a GitHub Pages project site): the
   one place it is read; base.html writes the meta only under a path (site_root.py) */
const SITE_ROOT = ($('meta[name="site-root"]') || {}).content || "/";
function h(tag, attrs, ...kids) {
  const el = d.createElement(tag);
  for (const k in attrs) {
    const v = attrs[k];
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") el.textContent = v; else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of kids.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/* theme: follows the system until toggled; the choice is stored */
const toggle = $("[data-theme-toggle]");
if (toggle) {
  const dark = () => (root.dataset.theme || (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light")) === "dark";
  const sync = () => toggle.setAttribute("aria-pressed", String(dark()));
  sync();
  toggle.addEventListener("click", () => { root.dataset.theme = dark() ? "light" : "dark"; store("theme", root.dataset.theme); sync(); });
}

/* keyboard: "/" and Ctrl/Cmd+K focus search; arrows move within radio groups and tab lists */
d.addEventListener("keydown", e => {
  const t = e.target;
  if ((e.key === "k" || e.key === "K") && (e.ctrlKey || e.metaKey) && !e.altKey || e.key === "/" && !e.ctrlKey && !e.metaKey && !e.altKey
      && !(t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) {
    const box = $("[data-search]") || $("[data-site-search]");
    if (box) { e.preventDefault(); box.focus(); box.select(); }
    return;
  }
  const item = t.closest && t.closest("[role=radio],[role=tab]");
  if (!item) return;
  const group = item.closest(item.getAttribute("role") === "radio" ? "[role=radiogroup]" : "[role=tablist]");
  const opts = $$("[role=radio],[role=tab]", group).filter(o => o === item || o.getAttribute("aria-disabled") !== "true");
  const i = opts.indexOf(item), k = e.key;
  const next = k === "ArrowRight" || k === "ArrowDown" ? opts[(i + 1) % opts.length]
    : k === "ArrowLeft" || k === "ArrowUp" ? opts[(i - 1 + opts.length) % opts.length]
    : k === "Home" ? opts[0] : k === "End" ? opts[opts.length - 1] : null;
  if (next && next !== item) { e.preventDefault(); next.focus(); next.click(); }
});

/* copy buttons: the command card's announces in its own live region, others in the page's */
async function copyText(text) {
  try { await navigator.clipboard.writeText(text); return true; } catch (e) {
    const ta = h("textarea", { readonly: true, class: "sr-only" });
    ta.value = text; d.body.append(ta); ta.select();
    let ok = false;
    try { ok = d.execCommand("copy"); } catch (e2) { ok = false; }
    ta.remove();
    return ok;
  }
}
d.addEventListener("click", async e => {
  const b = e.target.closest("button[data-copy],button[data-copy-from],button[data-copy-text]");
  if (!b) return;
  const text = b.hasAttribute("data-copy") ? $("pre[data-command]").textContent
    : b.dataset.copyFrom ? d.getElementById(b.dataset.copyFrom).textContent : b.dataset.copyText;
  const ok = await copyText(text);
  const live = b.hasAttribute("data-copy") ? $("[data-copy-status]") : $("[data-announce]");
  if (!b.dataset.label) b.dataset.label = b.textContent;
  b.textContent = ok ? "Copied" : "Copy failed";
  if (live) live.textContent = ok ? "Copied" : "Copy failed: select the text and copy it by hand";
  clearTimeout(b._t);
  b._t = setTimeout(() => { b.textContent = b.dataset.label; if (live) live.textContent = ""; }, 2000);
});

/* code blocks of guides get a copy button too */
$$(".prose pre").forEach((pre, i) => {
  pre.id = pre.id || "code-" + (i + 1);
  pre.tabIndex = 0;
  const wrap = h("div", { class: "code" });
  pre.replaceWith(wrap);
  wrap.append(pre, h("button", { type: "button", class: "copy", "data-copy-from": pre.id, text: "Copy" }));
});

/* install tabs (pip / docker); choosing one also switches the command form */
let setForm = () => {};
function installTab(key) {
  for (const t of $$("[data-install]")) {
    const on = t.dataset.install === key;
    t.setAttribute("aria-selected", String(on)); t.tabIndex = on ? 0 : -1;
    d.getElementById(t.getAttribute("aria-controls")).hidden = !on;
  }
}
d.addEventListener("click", e => {
  const t = e.target.closest("[data-install]");
  if (t) { installTab(t.dataset.install); setForm(t.dataset.install === "docker" ? "docker" : "serve", true); }
});

/* ---------------------------------------------------------------- KV-cache figures
   The page formulas of fit.py `panel_entry` (CONTRIBUTING.md, "KV cache"), transcribed literally:
   e is one deployment entry of the API's kv_sizing, L a request length, C concurrent requests.
   No rule lives here; the engine's numbers (bytes per token per GPU, windows, KV cache bytes)
   feed them. window.kvFit lets the tests compare them with fit.py. */
const kvFit = (() => {
  const seq = (e, L) => L <= 0 ? 0 : (e.kv_bytes_per_block_per_gpu ?? e.kv_bytes_per_token_per_gpu * (e.block_size || 16)) * Math.ceil(L / (e.block_size || 16))
    + (e.windows_per_gpu || []).reduce((s, w) => s + w.block_bytes * (Math.ceil(Math.min(L, w.tokens) / w.block_size) + w.extra_blocks), 0)
    + (e.state_bytes_per_sequence_per_gpu || 0);
  const needed = (e, L, C) => Math.ceil(C / e.dp) * seq(e, L);
  const room = e => e.kv_cache_bytes_per_gpu - (e.null_block_bytes || 0);
  const fits = (e, L, C) => needed(e, L, C) <= room(e);
  const requests = (e, L) => { const one = seq(e, L); return one > 0 ? Math.max(0, Math.floor(room(e) / one)) * e.dp : 0; };
  function longest(e, C) {
    const cap = e.context_length || 2 ** 24;
    if (room(e) <= 0 || C <= 0) return 0;
    if (fits(e, cap, C)) return cap;
    let lo = 0, hi = cap;
    while (hi - lo > 1) { const mid = Math.floor((lo + hi) / 2); if (fits(e, mid, C)) lo = mid; else hi = mid; }
    return lo;
  }
  const figures = (e, L, C) => e.kv_cache_bytes_per_gpu === null || e.kv_bytes_per_token_per_gpu === null
    ? { needed: null, fits: null, requests: null, longest: null }
    : { needed: needed(e, L, C), fits: fits(e, L, C), requests: requests(e, L), longest: longest(e, C) };
  return { seq, needed, fits, requests, longest, figures };
})();
window.kvFit = kvFit;

/* ---------------------------------------------------------------- model page picker */
const P = $("[data-picker]");
if (P) { docTabs(P); picker(P, data("picker-data")); }

function picker(P, D) {
  const HW_KEY = "recipes:hardware";
  const docs = { [D.initial.hardware]: D.initial }, pending = {};
  let S = null, X = null, seq = 0, form = "serve";
  /* the embedded document is `partial` (picker.py `page_document`): stubs stand for the renderings
     the first view does not show, and the whole document is fetched when one is picked */
  const load = hw => docs[hw] && !docs[hw].partial ? Promise.resolve(docs[hw]) : pending[hw] || (pending[hw] =
    fetch(D.api_url.replace("{hw}", encodeURIComponent(hw)))
      .then(r => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(doc => (docs[hw] = doc))
      .finally(() => { delete pending[hw]; }));

  function fromUrl() {
    const q = new URLSearchParams(location.search), w = { on: null, modes: {} };
    for (const k of ["hardware", "variant", "strategy", "nodes", "gpus", "len", "conc"]) if (q.has(k)) w[k] = q.get(k);
    if (q.has("features")) {
      w.on = {};
      for (const part of q.get("features").split(",")) {
        const [name, mode] = part.split(":");
        if (name) { w.on[name] = true; if (mode) w.modes[name] = mode; }
      }
    }
    return w;
  }

  const SEP = " \\\n  ";
  const get = (o, path) => path.reduce((x, k) => x[k], o);
  const featuresOf = r => docs[S.hardware].feature_sets[r.parts.features];
  /* the features in force: defaults, or the user's set; a locked rendering keeps its defaults */
  /* of each taxonomy conflict group (D.conflicts), only the feature named first stays on */
  function exclusive(on) {
    if (!on) return on;
    const out = Object.assign({}, on);
    for (const g of D.conflicts || []) for (const n of Object.keys(on).filter(x => g.includes(x)).slice(1)) delete out[n];
    return out;
  }
  function choose(r, on, modes) {
    on = exclusive(on);
    const out = [], fs = featuresOf(r);
    /* a feature set naming none of this rendering's features (?features=foo) means the defaults */
    const unknown = on && Object.keys(on).length > 0 && !fs.some(f => on[f.name]);
    for (const f of fs) {
      const locked = r.parts.features_locked || !on || unknown;
      if (!(locked ? f.default !== false && f.default !== null : on[f.name])) continue;
      const want = locked ? f.default : modes[f.name];
      out.push([f, f.modes ? f.modes.find(m => m.name === want) || f.modes.find(m => m.name === f.default) || f.modes[0] : null]);
    }
    return out;
  }
  const featureKey = ch => ch.map(([f, m]) => m ? f.name + ":" + m.name : f.name).join(",");

  /* the assembly rule: the rendered command around its feature block + the selected lines */
  function commandParts(r, p, ch) {   /* [head, tail]: the command is head + tail */
    if (r.parts.features_locked) return form === "docker" ? [get(r, p.docker_path), ""] : [p.exports + get(r, p.path), ""];
    const body = get(r, p.path).split(SEP), x = K && K.extra(r, ch, p);
    let lines = body.slice(1, 1 + p.at).concat(...ch.map(([f, m]) => m ? m.lines : f.lines), x ? x.lines : [], body.slice(1 + p.at + p.n));
    if (S.layout && p === r.parts.processes[0]) lines = layoutLines(lines, r.gpus, S.layout);
    if (x) lines = x.edit(lines);
    const tail = lines.length ? SEP + lines.join(SEP) : "", head = get(r, p.docker_path).split(SEP).slice(0, p.docker_at);
    if (K) K.head(r, head);
    return form === "docker" ? [head.join(SEP), tail] : [p.exports + (x ? x.exports : "") + body[0], tail];
  }
  const commandText = (r, p, ch) => commandParts(r, p, ch).join("");
  /* gpu_counts.py `layout_lines`: the command on the reader's GPU count (layout c) */
  function layoutLines(lines, G, c) {
    const out = lines.slice(), at = G.tp_at >= 0 ? G.tp_at : out.length + G.tp_at;
    out[at] = D.tp_line.replace("{tp}", c.tensor_parallel_size);
    return out.slice(0, out.length - G.tail).concat(c.lines || []);
  }
  /* the plan of the command shown: plan.py computed one per feature state that changes memory */
  function planOf(r, ch) {   /* pages.py `plan_of` */
    const P = r.plan, keys = P.keys || [], k = featureKey(ch.filter(([f]) => keys.includes(f.name)));
    return expand((P.by || {})[k] || vt.plan(P.default), D.hardware[S.hardware]);
  }
  /* plan.py `expand` and `reason`: the published plan with its defaults, memory and reason put back */
  function expand(c, hw) {
    const p = Object.assign({ nodes: 1, pp: 1, dp: 1, ep: false, weights_gib: null, weights_gib_per_gpu: null,
      kv_cache_bytes_per_gpu: null, kv_bytes_per_token_per_gpu: null, block_size: 16, kv_bytes_per_block_per_gpu: null, null_block_bytes: 0, max_tokens: null, concurrency: null,
      context_length: null, windows_per_gpu: [], prefill_chunk: 0, verdict: null }, c, { vram_gib_per_gpu: hw.vram_per_gpu_gb });
    p.kv_cache_gib_per_gpu = p.kv_cache_bytes_per_gpu === null ? null : p.kv_cache_bytes_per_gpu / GIB;
    p.reason = planReason(p, hw.gpu, hw.vram_per_gpu_gb);
    return p;
  }
  function planReason(p, name, vram) {
    const v = p.verdict, w = p.weights_gib_per_gpu, b = p.budget_gib_per_gpu;
    if (v === "refused") return `${p.refusal}: vLLM refuses this tensor-parallel size and will not start.`;
    if (v === null) return "The variant gives no weight size, so there is no estimate.";
    if (v === "over") return `${gib(w)} GiB of weights per GPU exceed the ${gib(b)} GiB budget of each ${name}: this command cannot load the model.`;
    if (v === "no_kv") return `${gib(w)} GiB of weights and ${gib(p.overhead_gib_per_gpu)} GiB of overhead per GPU leave no room for a KV cache in the ${gib(b)} GiB budget of each ${name}: vLLM will not start.`;
    const kv = p.kv_cache_gib_per_gpu;
    if (v === "short") return `One ${fmt(p.context_length)}-token request needs more than the ${gib(kv)} GiB of KV cache per GPU left${p.max_tokens === null ? "" : ` (${fmt(p.max_tokens)} tokens)`}: vLLM refuses to start; lower --max-model-len.`;
    const gpus = p.gpus > 1 ? `${p.gpus} × ${name} (${num(vram)} GiB each)` : `one ${name} (${num(vram)} GiB)`;
    let out = `${gib(p.weights_gib)} GiB of weights on ${gpus}: ${gib(w)} GiB per GPU`;
    if (kv !== null) out += `, leaving ${gib(kv)} GiB of KV cache per GPU` + (p.max_tokens ? ` (${fmt(p.max_tokens)} tokens)` : "");
    return out + ".";
  }
  const holds = p => p.verdict === "fits" || p.verdict === null;
  /* pages.py `window_note`: the longest request the command serves, read from its plan */
  function windowNote(p, full) {
    const n = p.context_length;
    if (!n || !holds(p)) return "";
    const room = p.max_tokens ? ` (its KV cache holds ${fmt(p.max_tokens)} tokens per GPU)` : "";
    return full && n < full ? `This command serves requests of up to ${fmt(n)} tokens (--max-model-len ${n}), not the model's full ${fmt(full)}${room}.`
      : `This command serves the model's full ${fmt(n)}-token window${room}.`;
  }
  /* a URL's variant that does not run on its hardware, and what does (only a URL asks for one:
     the server-rendered default view never does) */
  function missingText(m) {
    const hw = D.labels[m.hardware] || D.hardware[m.hardware].label, runs = Object.keys(D.variants).filter(k => D.variants[k].hardware.includes(m.hardware));
    const why = (D.reasons[m.variant] || {})[m.hardware];
    return `${D.variants[m.variant].label} is not available on ${hw}. ` + (why ? why.replace(/ \(available with [^)]*\)$/, "") + ". " : "")
      + (runs.length ? `${hw} runs ${runs.map(k => D.variants[k].label).join(", ")}.` : `No variant of this recipe runs on ${hw}: showing ${D.labels[S.hardware] || D.hardware[S.hardware].label}.`);
  }
  function tabs(r) {
    const ex = docs[S.hardware].extra_sets[r.parts.extras];
    const list = ex.filter(e => e.id !== "router").concat(r.parts.processes, ex.filter(e => e.id === "router"));
    return K ? K.tabs(r, list) : list;
  }

  /* strategy and node count on one hardware: an explicit strategy wins; a node count alone
     picks the recommended strategy if it offers that count, else the first one that does */
  /* a node pill names the nodes and GPUs its rendering occupies (pages.py `node_pills`) */
  function nodePill(n) {
    const rs = docs[S.hardware].renderings.filter(x => x.variant === X.r.variant);
    const x = rs.find(y => y.strategy === S.strategy && y.node_count === n) || rs.find(y => y.node_count === n);
    const p = x.plan.default, n2 = p.nodes || 1;
    return [h("b", { text: n2 + (n2 > 1 ? " nodes" : " node") }), h("small", { text: p.gpus + (p.gpus > 1 ? " GPUs" : " GPU") })];
  }
  function resolve(doc, variant, w) {
    const want = doc.recommended[variant], rs = doc.renderings.filter(r => r.variant === want.variant);
    const rec = rs.find(r => r.strategy === want.strategy && r.node_count === want.node_count);
    const strategies = [...new Set(rs.map(r => r.strategy))];
    const nodes = [...new Set(rs.map(r => r.node_count))].sort((a, b) => a - b);
    const has = (s, n) => rs.some(r => r.strategy === s && r.node_count === n), wanted = +w.nodes;
    const strategy = strategies.includes(w.strategy) ? w.strategy
      : nodes.includes(wanted) && !has(rec.strategy, wanted) ? rs.find(r => r.node_count === wanted).strategy : rec.strategy;
    const own = rs.filter(r => r.strategy === strategy).map(r => r.node_count).sort((a, b) => a - b);
    const defNodes = strategy === rec.strategy && own.includes(rec.node_count) ? rec.node_count : own[0];
    const n = has(strategy, wanted) ? wanted : defNodes;
    return { rec, strategies, nodes, defNodes, strategy, n, r: rs.find(r => r.strategy === strategy && r.node_count === n) };
  }

  /* a URL's hardware is kept: a variant that does not run there gives way to one that does
     (the default first), and the page says so (`missing`); a click on a variant moves the
     hardware to one that variant runs on, as the dimmed pills said */
  function place(w, how) {
    const asked = w.variant in D.variants ? w.variant : D.default.variant, V = D.variants[asked];
    const stored = how === "pop" ? null : store(HW_KEY);
    if (V.hardware.includes(w.hardware)) return { variant: asked, hardware: w.hardware, missing: null };
    if (how !== "push" && w.hardware in D.hardware) {
      const runs = [D.default.variant].concat(Object.keys(D.variants)).find(k => D.variants[k].hardware.includes(w.hardware));
      return { variant: runs || asked, hardware: runs ? w.hardware : V.default_hardware, missing: { variant: asked, hardware: w.hardware } };
    }
    return { variant: asked, hardware: V.hardware.includes(stored) ? stored : V.default_hardware, missing: null };
  }

  async function go(w, how) {
    const my = ++seq;
    const { variant, hardware, missing } = place(w, how);
    let doc = docs[hardware];
    let x = doc && resolve(doc, variant, w);
    if (!doc || x.r.stub) {
      P.setAttribute("aria-busy", "true");
      try { doc = await load(hardware); } catch (e) {
        if (my === seq) { P.removeAttribute("aria-busy"); fail("Could not load the commands for " + D.hardware[hardware].label + " (" + e.message + ")."); }
        return;
      }
      if (my !== seq) return;
      P.removeAttribute("aria-busy");
      x = resolve(doc, variant, w);
    }
    X = x;
    const G = X.r.gpus, c = w.gpus && G && G.counts[w.gpus];
    S = { variant, hardware, missing, strategy: X.strategy, nodes: X.n, on: w.on, modes: w.modes || {}, tab: S && S.tab,
      gpus: w.gpus, layout: c && c.fits ? c : null };
    X.r = pd.r(X.r, how);
    if (KV && how !== "push") {   /* the sizing inputs come from the URL; a click keeps what they hold */
      lenTouched = w.len !== undefined;
      if (lenTouched) lenIn.value = w.len;
      concIn.value = w.conc !== undefined ? w.conc : 1;
    }
    render();
    const url = query();
    if (how === "push" && url !== location.pathname + location.search + location.hash) history.pushState(null, "", url);
    else if (how === "replace" && !missing) history.replaceState(null, "", url);   /* a shared URL stays as it was sent */
  }
  function fail(msg) { const el = $("[data-picker-error]", P); el.textContent = msg; el.hidden = !msg; }

  function query() {
    const q = [], r = X.r, set = (k, v) => q.push(k + "=" + encodeURIComponent(v).replace(/%2C/g, ",").replace(/%3A/g, ":"));
    if (S.hardware !== D.variants[S.variant].default_hardware) set("hardware", S.hardware);
    if (S.variant !== D.default.variant) set("variant", S.variant);
    if (S.strategy !== X.rec.strategy) set("strategy", S.strategy);
    if (S.nodes !== X.defNodes) set("nodes", S.nodes);
    if (S.layout) set("gpus", S.gpus);
    const k = featureKey(choose(r, S.on, S.modes));
    if (k !== featureKey(choose(r, null, {}))) set("features", k);
    if (KV && lenTouched) set("len", lenIn.value);
    if (KV && concIn.value !== "1") set("conc", concIn.value);
    if (K) K.query(set);
    pd.query(set);
    return location.pathname + (q.length ? "?" + q.join("&") : "") + location.hash;
  }

  function radio(value, on, kids) {
    return h("button", { type: "button", class: "opt", role: "radio", "data-value": value, "aria-checked": String(on), tabindex: on ? 0 : -1 }, kids);
  }
  function setRadio(b, on) { b.setAttribute("aria-checked", String(on)); b.tabIndex = on ? 0 : -1; }
  function fill(el, kids) { el.replaceChildren(...kids); }

  function render() {
    const r = X.r, ch = choose(r, S.on, S.modes), V = D.variants[S.variant], HW = D.hardware[S.hardware];
    P.dataset.rendering = [S.hardware, r.variant, r.strategy, r.node_count].join("/");   /* inputs.rendering_key */
    P.dispatchEvent(new Event("rendering"));
    const features = featuresOf(r), locked = r.parts.features_locked;
    const a = d.activeElement, focusKey = a && P.contains(a) && a !== d.body ? keyOf(a) : null;
    fail("");
    const reasons = D.reasons[S.variant] || {};
    for (const b of $$("[data-axis=hardware] [role=radio]", P)) {
      const v = b.dataset.value;
      setRadio(b, v === S.hardware);
      if (V.hardware.includes(v)) { b.removeAttribute("aria-disabled"); b.removeAttribute("title"); }
      else { b.setAttribute("aria-disabled", "true"); b.title = reasons[v] || "Not offered for this variant"; }
    }
    for (const b of $$("[data-axis=variant] [role=radio]", P)) setRadio(b, b.dataset.value === S.variant);
    const SV = r.variant !== S.variant && D.variants[r.variant] || V;   /* the variant the command serves */
    fill($("[data-variant-note]", P), [...(S.missing ? [h("span", { class: "warn", "data-missing": true, text: missingText(S.missing) }), " "] : []),
      ...(SV !== V ? [h("span", { class: "warn", text: `${V.label} does not run on ${D.labels[S.hardware] || HW.label}: this command serves ${SV.label}.` }), " "] : []),
      SV.description, SV.description ? " · " : "",
      h("a", { href: "https://huggingface.co/" + SV.model_id, rel: "noopener", text: SV.model_id })]);
    fill($("[data-axis=strategy]", P), X.strategies.map(s => radio(s, s === S.strategy, [
      h("b", { text: D.strategies[s] ? D.strategies[s].label : s }),
      s === X.rec.strategy && h("small", { class: "rec", text: "recommended" })])));
    const st = D.strategies[S.strategy] || {};
    fill($("[data-strategy-note]", P), [st.orientation ? h("span", { class: "tag", text: st.orientation }) : "",
      st.orientation ? " " : "", D.notes[S.strategy] || ""]);
    fill($("[data-axis=nodes]", P), X.nodes.map(n => radio(n, n === S.nodes, nodePill(n))));
    gpusRender(r, HW);
    fill($("[data-features]", P), features.length ? features.map(f => {
      const got = ch.find(([g]) => g === f);
      return h("div", { class: "feat" },
        h("label", { title: f.description }, h("input", { type: "checkbox", "data-feature": f.name, checked: !!got, disabled: locked }), " " + f.label),
        f.modes && h("select", { "data-feature-mode": f.name, "aria-label": f.label + " mode", disabled: locked },
          f.modes.map(m => h("option", { value: m.name, selected: got ? got[1] === m : m.name === (S.modes[f.name] || f.default), text: m.label }))));
    }) : [h("p", { class: "hint", text: "No optional features for this choice." })]);
    $("[data-locked]", P).hidden = !locked;

    /* command card: "verified" and a plain Copy only beside a command that can start */
    const L = S.layout, plan = L ? layoutPlan(L, HW) : planOf(r, ch), ok = holds(plan);
    $("[data-summary]", P).textContent = L ? gpusText(+S.gpus, HW) + ` · TP=${L.tensor_parallel_size}`
      + (L.replicas > 1 ? ` · ${L.replicas} copies` : "") + (SV.precision ? " · " + SV.precision.toUpperCase() : "") : r.parts.summary;
    const ver = $("[data-verified]", P);
    ver.hidden = !HW.verified || !ok; ver.textContent = "Verified on " + HW.label;
    const copy = $("[data-copy]", P);
    copy.dataset.label = copy.textContent = ok ? "Copy" : "Copy anyway";
    copy.classList.toggle("anyway", !ok);
    if (ok) copy.removeAttribute("aria-describedby"); else copy.setAttribute("aria-describedby", "plan-warning");
    const list = tabs(r), first = r.parts.processes[0];
    const tab = list.find(t => t.id === S.tab) || first;
    S.tab = tab.id;
    const bar = $("[data-process-tabs]", P);
    bar.hidden = list.length < 2;
    fill(bar, list.length < 2 ? [] : list.map(t => h("button", { type: "button", role: "tab", id: "tab-" + t.id, "data-process": t.id,
      "aria-controls": "command-panel", "aria-selected": String(t === tab), tabindex: t === tab ? 0 : -1, text: t.label })));
    const panel = d.getElementById("command-panel");
    if (list.length > 1) { panel.setAttribute("aria-labelledby", "tab-" + tab.id); panel.removeAttribute("aria-label"); }
    else { panel.removeAttribute("aria-labelledby"); panel.setAttribute("aria-label", "Command"); }
    const pre = $("pre[data-command]", P);
    const text = vt.text(tab.path && !tab.docker_path ? tab.prefix + get(r, tab.path) : tab.text !== undefined ? tab.text : commandText(r, tab, ch));
    if (pre.textContent !== text) {
      pre.textContent = text;
      const card = $("[data-command-card]", P);
      card.classList.remove("flash"); void card.offsetWidth; card.classList.add("flash");
    }
    for (const b of $$("[data-form]", P)) b.setAttribute("aria-pressed", String(b.dataset.form === form));
    /* the shell variables to set first (rendering_json.user_variables) */
    const vars = r.user_variables || [], varsEl = $("[data-user-vars]", P);
    varsEl.hidden = !vars.length;
    fill(varsEl, vars.length ? ["Set before pasting: ", ...vars.flatMap((v, i) => [i ? ", " : "", h("code", { text: "$" + v })])] : []);

    /* the plan of the command shown: the card's warning, the memory panel, the throughput plan */
    const warn = $("[data-plan-warning]", P);
    warn.hidden = ok;
    warn.textContent = ok ? "" : "This command cannot start here: " + plan.reason;
    $("[data-window]", P).textContent = windowNote(plan, SV.context_length);
    $("[data-sizing-hw]", P).textContent = D.labels[S.hardware] || HW.label;
    const view = L ? { facts: [["GPUs", `${S.gpus} × ${HW.gpu}`], ["Layout", `TP ${L.tensor_parallel_size}` + (L.replicas > 1 ? ` × ${L.replicas} copies` : "")]], why: L.reason, ok: true }
      : planFacts(plan, HW.gpu);
    fill($("[data-sizing] dl", P), view.facts.map(([k, v]) => h("div", {}, h("dt", { text: k }), h("dd", { text: v }))));
    const why = $("[data-sizing-why]", P);
    why.textContent = view.why; why.className = view.ok ? "fits" : "over";
    kvRender(plan);
    planRender(r, plan, ch);
    speedRender(r);
    if (K) K.render(r, plan);
    if (PD && !pd.js && r.deploy_type === "pd_cluster") { pd.js = 1; d.head.append(h("script", { src: PD.dataset.js })); }
    pd.render(r);

    if (focusKey) { const el = $(focusKey, P); if (el && el !== d.activeElement) el.focus(); }
    vt.render();
  }
  function keyOf(el) {
    const axis = el.closest("[data-axis]");
    if (axis && el.matches("[role=radio]")) return `[data-axis=${axis.dataset.axis}] [aria-checked=true]`;
    if (el.dataset.process) return "[role=tab][aria-selected=true]";
    if (el.dataset.feature) return `input[data-feature="${CSS.escape(el.dataset.feature)}"]`;
    if (el.dataset.featureMode) return `select[data-feature-mode="${CSS.escape(el.dataset.featureMode)}"]`;
    return null;
  }
  const num = v => String(+v);
  const layoutText = p => `TP ${p.tp}` + (p.pp > 1 ? ` × PP ${p.pp}` : "") + (p.dp > 1 ? ` × DP ${p.dp}` : "") + (p.ep ? " + EP" : "");
  function planFacts(p, label) {   /* pages.py `plan_facts` */
    const facts = [["GPUs", `${p.gpus} × ${label}` + (p.nodes > 1 ? ` on ${p.nodes} nodes` : "")], ["Layout", layoutText(p)]];
    if (p.weights_gib !== null) facts.push(["Weights", `${gib(p.weights_gib)} GiB · ${gib(p.weights_gib_per_gpu)} GiB per GPU`]);
    facts.push(["Budget per GPU", `${gib(p.budget_gib_per_gpu)} GiB of ${num(p.vram_gib_per_gpu)} GiB`]);
    return { facts, why: p.reason, ok: holds(p) };
  }

  /* KV cache and throughput plan of the selected variant, hardware, strategy and node count
     (pages.py `kv_view` and `plan_view` render the first view the same way) */
  const KV = $("[data-kv]", P), PLAN = $("[data-plan]", P), GIB = 2 ** 30;
  const lenIn = KV && $("[data-kv-len]", KV), concIn = KV && $("[data-kv-conc]", KV);
  let lenTouched = false, planKey = null;
  const fmt = n => n.toLocaleString("en-US"), gib = x => x.toFixed(1);
  const count = (n, w, plural = w + "s") => fmt(n) + " " + (n === 1 ? w : plural);
  const within = (v, lo, hi, dflt) => Number.isFinite(v) && v >= 1 ? Math.min(Math.max(Math.floor(v), lo), hi) : dflt;
  function kvView(e, L, C) {
    const v = { facts: [], parts: [], ok: null, aria: "" }, f = kvFit.figures(e, L, C);
    if (f.needed === null) { v.verdict = "No KV-cache estimate."; return v; }
    const kv = e.kv_cache_gib_per_gpu;
    const needs = `${count(C, "request")} of ${fmt(L)} tokens need${C === 1 ? "s" : ""} ${gib(f.needed / GIB)} GiB of KV cache per GPU`;
    if (!e.kv_cache_bytes_per_gpu) {
      v.verdict = `No room for a KV cache: weights and overhead exceed the ${gib(e.budget_gib_per_gpu)} GiB budget of each GPU.`;
      v.ok = false;
    } else if (f.fits) { v.verdict = `${needs}: fits in ${gib(kv)} GiB.`; v.ok = true; }
    else {
      v.verdict = `${needs}, more than the ${gib(kv)} GiB there is: at most ${fmt(f.requests)} of that length fit`
        + (f.longest ? `, or ${fmt(C)} of up to ${fmt(f.longest)} tokens each` : "") + ".";
      v.ok = false;
    }
    v.facts = [["KV per token", fmt(Math.floor(e.kv_bytes_per_token_per_gpu + 0.5)) + " B per GPU"],
      ["KV cache", `${gib(Math.max(kv, 0))} GiB per GPU` + (e.max_tokens === null ? "" : ` · ${fmt(e.max_tokens)} tokens`)],
      [`Requests of ${fmt(L)} tokens`, fmt(f.requests) + " at once"],
      [`Longest with ${fmt(C)} at once`, fmt(f.longest) + " tokens"]];
    const need = f.needed / GIB, room = Math.max(kv, 0), over = need > room;
    const total = e.memory_total_gib_per_gpu ?? e.vram_gib_per_gpu;   /* pages.py kv_view */
    const parts = [["weights", "Weights", e.weights_gib_per_gpu], ["overhead", "Overhead", e.overhead_gib_per_gpu],
      [over ? "over" : "kv", over ? "KV cache needed" : "KV cache in use", need], ["free", "KV cache free", over ? 0 : room - need],
      ["reserve", "Reserve", total - e.budget_gib_per_gpu]];
    const scale = Math.max(total, parts.reduce((s, p) => s + p[2], 0));
    v.parts = parts.filter(p => p[2] > 0).map(([key, label, g]) => [key, `${label} ${gib(g)} GiB`, (100 * g / scale).toFixed(2) + "%"]);
    v.aria = `Per GPU of ${num(total)} GiB: ` + v.parts.map(p => p[1]).join(", ");
    return v;
  }
  /* the throughput plan: copies of the command shown, each on its own GPUs and port (pages.py `plan_view`) */
  function planView(r, p, hw, ch) {
    const L = S.layout;
    if (L) return layoutView(r, L, hw, ch);
    const parts = r.plan.replicas;
    if (!holds(p)) return { summary: "No throughput plan: this command cannot start (see above).", commands: [] };
    if (!parts) {
      const where = p.nodes > 1 ? `${p.nodes} nodes` : p.gpus >= hw.gpu_count ? `all ${p.gpus} GPUs of one ${hw.label} node`
        : `${p.gpus} of the ${hw.gpu_count} GPUs of one ${hw.label} node`;
      return { summary: `One copy of this command: it uses ${where}.`, commands: [] };
    }
    const reps = parts.replicas, main = r.parts.processes[0], [head, tail] = commandParts(r, main, ch);
    let s = `${count(reps.length, "copy", "copies")} of this command (${layoutText(p)}, ${count(p.gpus, "GPU")} each) fill one ${hw.gpu_count} × ${hw.gpu} node, each on its own GPUs and port`;
    if (p.concurrency !== null) s += `, each holding ${count(p.concurrency, "request")} of ${fmt(p.context_length)} tokens (${gib(p.kv_cache_gib_per_gpu)} GiB of KV cache per GPU)`;
    return { summary: s + ".", commands: replicaCommands(parts, reps, head, tail) };
  }
  const fillIn = (text, x) => text.replace(/\{gpus\}/g, x.gpus).replace(/\{port\}/g, String(x.port));
  function replicaCommands(parts, reps, head, tail) {
    const dh = parts.docker_head.split(SEP);
    if (K) K.head(X.r, dh);
    const text = x => (form === "docker" ? fillIn(dh.join(SEP), x) : fillIn(parts.serve_prefix, x) + head) + tail + fillIn(parts.suffix, x);
    return reps.map((x, i) => ["plan-cmd-" + i, `Copy ${i + 1}: ${x.label}, port ${x.port}`, text(x)]);
  }
  /* the reader's GPU count: copies of the layout's command on the first replicas of its TP size
     (the document's gpu_replicas, gpu_counts.py `replica_sets`) */
  function layoutView(r, L, hw, ch) {
    const t = L.tensor_parallel_size, n = S.gpus;
    if (L.replicas < 2) return { summary: `One copy of this command on ${count(t, "GPU")}` + (t < n ? ` of your ${n}` : "") + `: ${L.reason}`, commands: [] };
    const [head, tail] = commandParts(r, r.parts.processes[0], ch), reps = docs[S.hardware].gpu_replicas[t].slice(0, L.replicas);
    return { summary: `${count(L.replicas, "copy", "copies")} of this command (TP ${t}, ${count(t, "GPU")} each) on ${n} of the ${hw.gpu_count} GPUs of one ${hw.label} node, each on its own GPUs and port.`,
      commands: replicaCommands(r.plan.replicas || r.gpus, reps, head, tail) };
  }
  /* the GPUs row: the recommended layout, then each count of the node (gpu_counts.py); a count that
     cannot hold the model is dimmed, and the largest of them says why under the row */
  const gpusText = (n, hw) => `${n}× ${hw.gpu}` + (n < hw.gpu_count ? ` of ${hw.gpu_count}` : "");
  function gpusRender(r, hw) {
    const G = r.gpus, row = $("[data-gpus-row]", P);
    row.hidden = !G;
    if (!G) return;
    const ns = Object.keys(G.counts), small = ns.filter(n => !G.counts[n].fits).pop();
    fill($("[data-axis=gpus]", P), [radio("", !S.layout, [h("b", { text: "Recommended" }), h("small", { text: count(r.plan.default.gpus, "GPU") })])].concat(ns.map(n => {
      const c = G.counts[n], b = radio(n, S.layout === c, [h("b", { text: n }), h("small", { text: c.fits ? `TP ${c.tensor_parallel_size}` + (c.replicas > 1 ? ` × ${c.replicas}` : "") : "too few" })]);
      if (!c.fits) { b.setAttribute("aria-disabled", "true"); b.title = c.reason; }
      return b;
    })));
    $("[data-gpus-note]", P).textContent = small ? `${count(+small, "GPU")}: ${G.counts[small].reason}.` : "";
  }
  /* what the panels read of a layout: it fits, on its TP's GPUs, serving its --max-model-len */
  const layoutPlan = (L, hw) => ({ verdict: "fits", gpus: L.tensor_parallel_size, nodes: 1, tp: L.tensor_parallel_size, pp: 1, dp: 1,
    context_length: L.max_model_len || D.variants[X.r.variant].context_length, max_tokens: null, kv_bytes_per_token_per_gpu: null, reason: L.reason, vram_gib_per_gpu: hw.vram_per_gpu_gb });
  function kvRender(e) {
    if (!KV) return;
    e = e || (S.layout ? layoutPlan(S.layout, D.hardware[S.hardware]) : planOf(X.r, choose(X.r, S.on, S.modes)));
    KV.hidden = e.kv_bytes_per_token_per_gpu === null;
    if (KV.hidden) return;
    const cap = e.context_length || 2 ** 24, dflt = e.context_length || 4096;
    lenIn.max = cap;
    if (!lenTouched) lenIn.value = dflt;
    const L = within(+lenIn.value, 1, cap, dflt), C = within(+concIn.value, 1, +concIn.max, 1), v = kvView(e, L, C);
    const bar = $("[data-kv-bar]", KV);
    fill(bar, v.parts.map(([key, , width]) => { const el = h("span", { class: "m-" + key, "data-part": key }); el.style.width = width; return el; }));
    bar.setAttribute("aria-label", v.aria);
    fill($("[data-kv-legend]", KV), v.parts.map(([key, text]) => h("li", { class: "m-" + key, text })));
    fill($("[data-kv-facts]", KV), v.facts.map(([k, x]) => h("div", {}, h("dt", { text: k }), h("dd", { text: x }))));
    const verdict = $("[data-kv-verdict]", KV);
    verdict.textContent = v.verdict;
    verdict.className = v.ok === null ? "" : v.ok ? "fits" : "over";
  }
  function planRender(r, p, ch) {
    const T = vt.tuned(), pv = T ? { summary: T, commands: [] } : planView(r, p, D.hardware[S.hardware], ch), key = JSON.stringify(pv);
    if (key === planKey) return;
    planKey = key;
    $("[data-plan-sum]", PLAN).textContent = pv.summary;
    fill($("[data-plan-cmds]", PLAN), pv.commands.flatMap(([id, caption, command], i) => [h("p", { class: "hint", text: caption }),
      h("div", { class: "code" }, h("pre", { id, tabindex: 0, text: command }),
        h("button", { type: "button", class: "copy", "data-copy-from": id, "aria-label": "Copy the command of replica " + (i + 1), text: "Copy" }))]));
  }
  /* speed panel, from the choice's API document (the page's copy has no estimates) */
  const SP = $("[data-speed]", P), first = SP && SP.innerHTML, full = {}, sn = v => v < 100 ? +v.toPrecision(3) : fmt(Math.round(v)), sr = (a, i) => sn(a[2 * i]) + "–" + sn(a[2 * i + 1]);
  function speedRender(r) {
    const hw = S.hardware, v = S.variant, doc = hw === D.initial.hardware ? full[hw] : docs[hw];
    if (!SP) return;
    if (!doc) {
      if ([hw, v, r.strategy, r.node_count].join("|") === D.speed.first) SP.innerHTML = first;
      else if (!(hw in full)) {
        full[hw] = null;
        fetch(D.api_url.replace("{hw}", hw)).then(x => x.json()).then(d => { full[hw] = d; S.hardware === hw && speedRender(X.r); }, () => delete full[hw]);
      }
      return;
    }
    const s = (doc.renderings.find(x => x.variant === r.variant && x.strategy === r.strategy && x.node_count === r.node_count) || {}).speed, use = $("use", SP), has = D.speed.svg && (doc.layouts || {})[v];
    use.parentNode.toggleAttribute("hidden", !has);
    has && use.setAttribute("href", D.speed.svg.replace("{hw}", hw).replace("{variant}", v));
    fill($("tbody", SP), s ? s.c.map((c, i) => h("tr", {}, h("td", { text: fmt(c) }), h("td", { text: sr(s.user, i) }), h("td", { text: sr(s.total, i) }))) : []);
    $("[data-speed-ttft]", SP).textContent = s ? D.speed.ttft.replace("{0}", sr(s.ttft_ms, 0)).replace("{1}", sr(s.ttft_ms, 1)) : D.speed.none;
  }
  if (KV) {
    const keep = () => { kvRender(); history.replaceState(null, "", query()); };
    lenIn.addEventListener("input", () => { lenTouched = true; keep(); });
    concIn.addEventListener("input", keep);
  }

  /* "More options" (KV offload, image, --max-model-len auto): static/more.js sets K when the
     row opens; render/advanced.py */
  let K = null;
  const KO = $("[data-more]", P);
  if (KO) {
    const asked = location.search;   /* the first replaceState drops what only more.js knows */
    KO.addEventListener("toggle", () => {
      if (window.recipesPicker) return;
      window.recipesPicker = { D, KO, asked, root: SITE_ROOT, planOf, render, query, state: () => [S, X], set: k => { K = k; if (X) { render(); history.replaceState(null, "", query()); } } };
      d.head.append(h("script", { src: KO.dataset.script }));
    });
    if (/[?&](kv_offload|image|max_model_len)=/.test(location.search)) KO.open = true;
  }

  /* what the user chose stays (as the URL says it); what was a default follows the new choice */
  function change(axis, value) {
    const w = { hardware: S.hardware, variant: S.variant, on: S.on, modes: S.modes };
    if (S.strategy !== X.rec.strategy) w.strategy = S.strategy;
    if (S.nodes !== X.defNodes) w.nodes = S.nodes;
    if (S.layout) w.gpus = S.gpus;
    if (axis === "gpus") w.gpus = value || undefined;
    else if (axis === "hardware") { w.hardware = value; store(HW_KEY, value); }
    else if (axis === "variant") w.variant = value;
    else if (axis === "strategy") { w.strategy = value; w.nodes = undefined; }
    else if (axis === "kvo" || axis === "image" || axis === "inst") K.change(w, axis, value);
    else { w.nodes = +value; if (!X.r || !docs[S.hardware].renderings.some(r => r.variant === X.r.variant && r.strategy === S.strategy && r.node_count === +value)) w.strategy = undefined; }
    go(w, "push");
  }
  function own() {   /* the user touches a feature: from now on the set is explicit */
    if (S.on) return;
    S.on = {}; S.modes = Object.assign({}, S.modes);
    for (const [f, m] of choose(X.r, null, {})) { S.on[f.name] = true; if (m) S.modes[f.name] = m.name; }
  }
  setForm = (f, fromInstall) => {
    form = f;
    if (!fromInstall && $("[data-install=" + (f === "docker" ? "docker" : "pip") + "]")) installTab(f === "docker" ? "docker" : "pip");
    if (X) render();
  };

  P.addEventListener("click", e => {
    const b = e.target.closest("[role=radio]");
    if (b) {
      if (b.getAttribute("aria-disabled") !== "true" && b.getAttribute("aria-checked") !== "true") change(b.closest("[data-axis]").dataset.axis, b.dataset.value);
      return;
    }
    const t = e.target.closest("[role=tab][data-process]");
    if (t) { S.tab = t.dataset.process; render(); return; }
    const f = e.target.closest("[data-form]");
    if (f) setForm(f.dataset.form);
  });
  P.addEventListener("change", e => {
    const t = e.target;
    if (t.matches("input[data-feature]")) {
      own();
      const name = t.dataset.feature;
      if (t.checked) {   /* checking one feature of a conflict group unchecks the others */
        for (const g of D.conflicts || []) if (g.includes(name)) for (const n of g) delete S.on[n];
        S.on[name] = true;
      } else delete S.on[name];
    } else if (t.matches("select[data-feature-mode]")) {
      own();
      S.modes[t.dataset.featureMode] = t.value; S.on[t.dataset.featureMode] = true;
    } else return;
    render();
    history.pushState(null, "", query());
  });
  const hint = $("[data-hw-hint]", P), legend = hint && hint.innerHTML;
  const prefetch = e => {
    if (S && docs[S.hardware].partial) load(S.hardware).catch(() => {});
    const b = e.target.closest && e.target.closest("[data-axis=hardware] [role=radio]");
    if (!b) return;
    if (b.getAttribute("aria-disabled") !== "true") { load(b.dataset.value).catch(() => {}); if (hint) hint.innerHTML = legend; }
    else if (hint) hint.textContent = b.querySelector("b").textContent + ": " + b.title;
  };
  P.addEventListener("pointerover", prefetch);
  P.addEventListener("focusin", prefetch);
  /* Verify, Bench, Tune: static/verify.js, loaded on the first click, sets these hooks */
  const vt = { plan: c => c, text: t => t, tuned: () => null, render() {} }, vtBar = $("[data-vt-bar]", P);
  vtBar.hidden = false;   /* the panels need this script */
  vtBar.addEventListener("click", e => {
    const b = e.target.closest("[data-vt]");
    if (b && !vt.js) { vt.js = vt.on = b.dataset.vt; d.head.append(h("script", { src: vtBar.dataset.js })); }
  });
  /* prefill/decode pools: static/pd.js, loaded when a pd_cluster rendering shows, sets these hooks
     (render/pd_json.py); `asked`: the URL before the first replaceState drops what only it knows */
  const PD = $("[data-pd-row]", P), pd = { r: r => r, query() {}, render() {}, asked: location.search };
  window.pdHook = () => ({ pd, P, PD, D, S: () => S, X: () => X, h, fill, SEP,
    apply(how) { X.r = pd.r(X.r.pdBase || X.r, how); render(); const u = query(); how === "push" ? history.pushState(null, "", u) : history.replaceState(null, "", u); } });
  window.vtHook = () => ({ vt, P, vtBar, S: () => S, X: () => X, render, choose, featureKey, kvFit, h, fill, fmt, SEP, GIB });
  addEventListener("popstate", () => go(fromUrl(), "pop"));
  go(fromUrl(), "replace");
}

/* tabs fed by a per-model API document when opened (pages.py doc_tabs explains the entries) */
/* `doc.json#part`: the part of a per-model document (deploy.json: verify, kubernetes, monitoring),
   the document fetched once for every part a page asks for */
const parts = {};
function getPart(u) {
  const [file, part] = u.split("#"), got = parts[file] = parts[file] || getJSON(file).catch(e => { delete parts[file]; throw e; });
  return got.then(doc => part ? doc[part] : doc);
}
window.getPart = getPart;
function docTabs(P) {
  const tabs = $$("[data-doc]", P);
  async function show(t) {
    const body = $("[data-doc-body]", t), key = P.dataset.rendering;
    if (!t.open || !key) return;
    let doc;
    try { doc = (await getPart(t.dataset.doc)); } catch (e) { body.textContent = "Could not load " + t.dataset.doc + " (" + e.message + ")."; return; }
    if (key !== P.dataset.rendering) return;
    /* static/pd.js and more.js: what the part leaves out of the pools and options chosen */
    const notes = [window.pdNote, window.moreNote].map(f => f && f(t.id.slice(4))).filter(Boolean);
    body.replaceChildren(...notes, ...Object.entries(doc.renderings[key] || { "": "Nothing for this choice." }).map(([k, v], i) => {
      const title = k && h("h4", { text: k.replace(/_/g, " ") }), id = t.id + i;
      if (Array.isArray(v)) return h("div", {}, title, h("ul", {}, v.map(j => h("li", { text: doc[k][j] }))));
      const text = typeof v === "number" ? doc.texts[v].map(j => doc.lines[j]).join("\n") : typeof v === "string" ? v : JSON.stringify(v, null, 2);
      return h("div", {}, title, h("div", { class: "code" }, h("pre", { id, tabindex: 0, text }),
        h("button", { type: "button", class: "copy", "data-copy-from": id, text: "Copy" }),
        h("button", { type: "button", class: "copy dl", "data-download": id, "data-name": `${t.dataset.file}-${key.replace(/\//g, "-")}-${k}.${typeof v === "object" || k === "grafana_dashboard" ? "json" : "yaml"}`, text: "Download" })));
    }));
  }
  for (const t of tabs) t.addEventListener("toggle", () => show(t));
  P.addEventListener("rendering", () => tabs.forEach(show));
  P.addEventListener("click", e => {
    const b = e.target.closest("[data-download]");
    if (!b) return;
    const a = h("a", { download: b.dataset.name, href: URL.createObjectURL(new Blob([d.getElementById(b.dataset.download).textContent + "\n"])) });
    a.click(); setTimeout(() => URL.revokeObjectURL(a.href));
  });
}

/* ---------------------------------------------------------------- search helpers */
const norm = s => s.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
const digits = s => s.replace(/\D/g, "");
function oneEdit(a, b) {   /* Damerau distance <= 1 */
  if (a === b) return true;
  const la = a.length, lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) return a.slice(i + 1) === b.slice(i + 1) || a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
function near(w, tokens) {  /* w is a whole token, or the start of one, with at most one typo */
  if (w.length < 4) return false;
  for (const t of tokens) {
    for (let L = w.length - 1; L <= w.length + 1; L++) {
      if (L > t.length || L < 3) continue;
      const p = t.slice(0, L);
      if (digits(p) === digits(w) && oneEdit(w, p)) return true;
    }
  }
  return false;
}
function indexText(text) {
  const n = norm(text);
  return { flat: n.replace(/[-_.]/g, ""), tokens: [...new Set(n.split(/[^a-z0-9]+/).filter(Boolean))] };
}
function matcher(q) {
  const words = norm(q).split(/\s+/).map(w => w.replace(/[-_.]/g, "")).filter(Boolean);
  return ix => words.every(w => ix.flat.includes(w) || near(w, ix.tokens));
}

/* ---------------------------------------------------------------- search shards (search.py)
   The records live in api/v1/search/<k>.json, name order, fixed-size shards of compact arrays
   (`fields` names the items); a page fetches a shard the first time it needs one. */
const fmtN = n => n.toLocaleString("en-US");
const getJSON = url => fetch(url).then(r => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); });
function decodeShard(doc) {
  return doc.records.map((a, j) => { const r = { i: doc.start + j }; doc.fields.forEach((f, n) => { r[f] = a[n]; }); return r; });
}
function shardLoader(urls) {
  const got = {}, pending = {};
  const one = k => got[k] ? Promise.resolve(got[k]) : pending[k] || (pending[k] = getJSON(urls[k])
    .then(doc => (got[k] = decodeShard(doc))).finally(() => { delete pending[k]; }));
  return { one, all: () => Promise.all(urls.map((_, k) => one(k))).then(parts => [].concat(...parts)) };
}
/* the words a record is found by: every field it shows, the hardware names and its checkpoints */
const recordText = (r, hw) => [r.id, r.title, r.provider.join(" "), r.description, r.task.join(" "), r.architecture.join(" "),
  r.params_label, r.precision.join(" "), r.hardware.join(" "), r.hardware.map(x => hw[x] || x).join(" "), r.checkpoints.join(" ")].join(" ");
/* search.py `bucket_of`: FNV-1a over UTF-16 code units */
function bucketOf(key, n) {
  let x = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) x = Math.imul(x ^ key.charCodeAt(i), 0x01000193) >>> 0;
  return x % n;
}
/* pages.py `_page_numbers`: first, last and two either side of the current page */
function pageNumbers(k, pages) {
  const out = new Set([1, pages]);
  for (let n = Math.max(1, k - 2); n <= Math.min(pages, k + 2); n++) out.add(n);
  return [...out].sort((a, b) => a - b);
}

/* ---------------------------------------------------------------- browse (home)
   The page holds the first page of rows (name order) and every facet's total; typing,
   filtering or sorting loads all shards once, paging in name order loads only its shard. */
const B = data("browse-data");
if (B) browse(B);

function browse(M) {
  const shards = shardLoader(M.shards), PS = M.page_size;
  const body = $("[data-rows]"), box = $("[data-search]"), sortSel = $("[data-sort]"), pager = $("[data-pager]");
  const count = $("[data-result-count]"), clear = $("[data-clear-filters]"), empty = $("[data-empty]");
  const inputs = $$("input[data-facet]"), sel = {};
  const countEl = inp => inp.closest("label").querySelector("[data-count]");
  const totals = new Map(inputs.map(inp => [inp, countEl(inp).textContent]));
  const firstRows = $$("[data-recipe-row]", body);
  M.facets.forEach(f => { sel[f] = new Set(); });
  let page = 1, all = null, seq = 0, lastOrder = null, ordered = null;
  const sorts = {
    name: (a, b) => a.i - b.i,
    updated: (a, b) => (b.updated > a.updated) - (b.updated < a.updated) || a.i - b.i,
    added: (a, b) => (b.added > a.added) - (b.added < a.added) || a.i - b.i,
    largest: (a, b) => (b.params ?? -1) - (a.params ?? -1) || a.i - b.i,
    smallest: (a, b) => (a.params ?? Infinity) - (b.params ?? Infinity) || a.i - b.i,
  };

  function readUrl() {
    const q = new URLSearchParams(location.search);
    box.value = q.get("q") || "";
    for (const f of M.facets) sel[f] = new Set((q.get(f) || "").split(",").filter(Boolean));
    for (const inp of inputs) inp.checked = sel[inp.dataset.facet].has(inp.value);
    sortSel.value = sorts[q.get("sort")] ? q.get("sort") : "name";
    page = Math.max(1, parseInt(q.get("page"), 10) || 1);
  }
  function urlFor(k) {
    const q = [];
    if (box.value.trim()) q.push("q=" + encodeURIComponent(box.value.trim()));
    for (const f of M.facets) if (sel[f].size) q.push(f + "=" + [...sel[f]].map(encodeURIComponent).join(","));
    if (sortSel.value !== "name") q.push("sort=" + sortSel.value);
    if (k > 1) q.push("page=" + k);
    return location.pathname + (q.length ? "?" + q.join("&") : "");
  }
  const writeUrl = push => history[push ? "pushState" : "replaceState"](null, "", urlFor(page));
  const inFacet = (r, f) => !sel[f].size || r[f].some(v => sel[f].has(v));
  const filtered = () => !!box.value.trim() || M.facets.some(f => sel[f].size);

  function rowOf(r) {   /* templates/index.html, one row */
    const tasks = r.task.map(t => M.task[t] || t).join(", ");
    return h("tr", { "data-recipe-row": true, "data-id": r.id },
      h("td", {}, h("a", { href: SITE_ROOT + r.id + "/" }, h("b", { text: r.title })), h("small", { text: r.id + (tasks ? " · " + tasks : "") })),
      h("td", {}, r.params_label, r.active_label ? h("small", { text: r.active_label + " active" }) : null),
      h("td", { class: "c-arch", text: r.architecture.map(a => M.architecture[a] || a).join("") }),
      h("td", { text: r.precision.map(x => x.toUpperCase()).join(" ") }),
      h("td", { class: "c-hw" }, r.runs_on[0], r.runs_on[1] && h("small", { text: r.runs_on[1] })),
      h("td", { class: "c-date", text: r.updated }));
  }
  function renderPager(pages) {
    pager.hidden = pages < 2;
    if (pages < 2) { pager.replaceChildren(); return; }
    const link = (k, text, rel) => h("a", { href: urlFor(k), "data-page": k, rel, text });
    const kids = page > 1 ? [link(page - 1, "← Previous", "prev")] : [];
    let last = 0;
    for (const k of pageNumbers(page, pages)) {
      if (k > last + 1) kids.push(h("span", { "aria-hidden": "true", text: "…" }));
      kids.push(k === page ? h("span", { "aria-current": "page", text: String(k) }) : link(k, String(k)));
      last = k;
    }
    if (page < pages) kids.push(link(page + 1, "Next →", "next"));
    kids.push(h("span", { "data-page-status": true, text: `Page ${page} of ${pages}` }));
    pager.replaceChildren(...kids.flatMap(k => [k, " "]));
  }
  function failed(e) {
    body.removeAttribute("aria-busy");
    count.textContent = "Could not load the search index (" + e.message + ").";
  }
  function show(rows, matches, pages) {
    body.removeAttribute("aria-busy");
    if (rows) body.replaceChildren(...rows.map(rowOf)); else body.replaceChildren(...firstRows);
    const from = (page - 1) * PS + 1, to = from + (rows ? rows.length : firstRows.length) - 1;
    count.textContent = pages > 1 ? `Showing ${fmtN(from)}–${fmtN(to)} of ${fmtN(matches)} ${filtered() ? "matching " : ""}recipes`
      : `${fmtN(matches)} of ${fmtN(M.total)} recipes`;
    empty.hidden = matches > 0;
    renderPager(pages);
    clear.disabled = !filtered();
    const active = M.facets.reduce((n, f) => n + sel[f].size, 0);
    $("[data-filter-count]").textContent = active ? ` (${active} on)` : "";
  }
  async function update() {
    const my = ++seq, q = box.value.trim();
    if (!filtered() && sortSel.value === "name") {   /* name order, nothing filtered: one shard at most */
      for (const inp of inputs) { countEl(inp).textContent = totals.get(inp); inp.disabled = false; }
      const pages = Math.max(1, Math.ceil(M.total / PS));
      page = Math.min(page, pages);
      if (page === 1) return show(null, M.total, pages);
      const start = (page - 1) * PS, k = Math.floor(start / M.shard_size);
      body.setAttribute("aria-busy", "true");
      let recs;
      try { recs = await shards.one(k); } catch (e) { if (my === seq) failed(e); return; }
      if (my !== seq) return;
      return show(recs.slice(start - k * M.shard_size, start - k * M.shard_size + PS), M.total, pages);
    }
    if (!all) {
      body.setAttribute("aria-busy", "true");
      let recs;
      try { recs = await shards.all(); } catch (e) { if (my === seq) failed(e); return; }
      if (my !== seq) return;
      all = recs.map(r => Object.assign(r, { ix: indexText(recordText(r, M.hardware)), name: indexText(r.id + " " + r.title) }));
    }
    /* by name while searching means best match first: words found in the id or title count most */
    const order = sortSel.value + (sortSel.value === "name" ? "|" + q : "");
    if (order !== lastOrder) {
      lastOrder = order;
      const by = sorts[sortSel.value], words = norm(q).split(/\s+/).filter(Boolean);
      for (const r of all) r.score = q && sortSel.value === "name" ? words.filter(w => matcher(w)(r.name)).length : 0;
      ordered = all.slice().sort((a, b) => b.score - a.score || by(a, b));
    }
    const m = matcher(box.value), counts = {}, matches = [];
    M.facets.forEach(f => { counts[f] = {}; });
    for (const r of ordered) {
      const miss = m(r.ix) ? M.facets.filter(f => !inFacet(r, f)) : M.facets;
      if (miss.length === 0) matches.push(r);
      if (miss.length > 1) continue;
      /* counts per facet value with every *other* filter applied */
      for (const f of miss.length ? miss : M.facets) for (const v of r[f]) counts[f][v] = (counts[f][v] || 0) + 1;
    }
    for (const inp of inputs) {
      const n = counts[inp.dataset.facet][inp.value] || 0;
      countEl(inp).textContent = n;
      inp.disabled = n === 0 && !inp.checked;
    }
    const pages = Math.max(1, Math.ceil(matches.length / PS));
    page = Math.min(page, pages);
    show(matches.slice((page - 1) * PS, page * PS), matches.length, pages);
  }
  readUrl();
  update();
  const details = $("details.filters");
  if (details && matchMedia("(max-width: 760px)").matches) details.open = false;
  const restart = () => { page = 1; update(); writeUrl(); };
  box.addEventListener("input", restart);
  sortSel.addEventListener("change", restart);
  for (const inp of inputs) inp.addEventListener("change", () => {
    sel[inp.dataset.facet][inp.checked ? "add" : "delete"](inp.value);
    restart();
  });
  clear.addEventListener("click", () => {
    box.value = "";
    for (const f of M.facets) sel[f].clear();
    for (const inp of inputs) inp.checked = false;
    restart(); box.focus();
  });
  pager.addEventListener("click", e => {
    const a = e.target.closest("a[data-page]");
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button) return;
    e.preventDefault();
    page = +a.dataset.page;
    update(); writeUrl(true);
    $("#results").scrollIntoView({ block: "start" });
  });
  addEventListener("popstate", () => { readUrl(); update(); });
}

/* ---------------------------------------------------------------- 404: case fixes and requests
   A mistyped letter case is fixed from the one id bucket the address falls in; suggestions
   come from the search shards, fetched only for an address shaped like a model id. */
const NF = data("nf-data");
if (NF) notFound(NF);

async function notFound(NF) {
  let path = location.pathname;
  try { path = decodeURIComponent(path); } catch (e) { /* a malformed %-escape: look the raw path up */ }
  if (path.startsWith(SITE_ROOT)) path = path.slice(SITE_ROOT.length);   /* the address below the site */
  path = path.replace(/\/index\.html$/, "").replace(/^\/+|\/+$/g, "");
  const parts = path.split("/"), low = path.toLowerCase();
  if (path && parts.length <= 2) {
    let hit = null;
    try {
      const ids = (await getJSON(NF.ids[bucketOf(low, NF.ids.length)])).ids;
      hit = Object.prototype.hasOwnProperty.call(ids, low) ? ids[low] : null;
    } catch (e) { hit = null; /* no lookup: the page stays as it is */ }
    if (hit && hit.split("?")[0] !== location.pathname) {
      location.replace(hit + location.search + location.hash);
      return;
    }
  }
  if (!(parts.length === 2 && parts[0] && parts[1])) return;
  $("[data-nf-title]").textContent = "No recipe yet";
  d.title = "No recipe yet for " + path + " | vLLM Recipes";
  $("[data-nf-generic]").hidden = true;
  $("[data-nf-model]").hidden = false;
  $("[data-nf-id]").textContent = path;
  $("[data-nf-hf]").href = "https://huggingface.co/" + parts.map(encodeURIComponent).join("/");
  const request = $("[data-nf-request]");   /* absent when the site has no repo_url */
  if (request && NF.repo) request.href = NF.repo + "/issues/new?labels=recipe-request&title=" + encodeURIComponent("Recipe request: " + path)
    + "&body=" + encodeURIComponent("Model: https://huggingface.co/" + path + "\nHardware:\nPrecision:\nNotes:\n");
  /* suggestions: recipes (and the checkpoints they serve) whose name or title share at least
     half of the missing repo's words */
  let recs;
  try { recs = await shardLoader(NF.shards).all(); } catch (e) { return; }
  const words = parts[1].split(/[-_.\s]+/).filter(w => w.length > 1), org = parts[0].toLowerCase();
  const score = (id, title) => {
    const [o, repo] = id.split("/"), ix = indexText(repo + " " + title);
    const n = words.filter(w => matcher(w)(ix)).length;
    return n >= Math.max(1, Math.ceil(words.length / 2)) ? n + (o.toLowerCase() === org ? 1 : 0) : 0;
  };
  const best = recs.flatMap(r => [[score(r.id, r.title), r.id]].concat(r.checkpoints.map(c => [score(c, ""), c])))
    .filter(([s]) => s > 0).sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : 1)).slice(0, 5);
  if (best.length) {
    $("[data-nf-suggest]").hidden = false;
    $("[data-nf-list]").replaceChildren(...best.flatMap(([, id], i) => [i ? ", " : "", h("a", { href: SITE_ROOT + id + "/", text: id })]));
  }
}

/* ---------------------------------------------------------------- header search dropdown
   static/search.js draws it, loaded on the first focus of the header's box; it reuses these */
window.recipesSite = { h, $, $$, indexText, matcher, shardLoader, recordText };
const ssBox = $("[data-site-search]");
if (ssBox) ssBox.addEventListener("focus", () => d.head.append(h("script", { src: ssBox.dataset.script })), { once: true });
})();
