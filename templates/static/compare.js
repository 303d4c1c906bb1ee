/* The /compare/ page: a model's hardware (or variants) side by side.
   Every figure and command line comes from the model document's `compare` block
   (recipes_site/render/compare.py); this script looks them up, marks the command lines not
   shared by every column and multiplies the reader's price per GPU-hour by published numbers. */
"use strict";
(function () {
  const form = document.querySelector("[data-compare]");
  if (!form) return;
  const $ = (s) => form.querySelector(s);
  const $$ = (s) => Array.from(form.querySelectorAll(s));
  const out = document.querySelector("[data-cmp-out]");
  const status = document.querySelector("[data-cmp-status]");
  const hwLabels = {};
  $$("[data-cmp-hw]").forEach((b) => { hwLabels[b.value] = b.parentNode.textContent.trim(); });
  const docs = {};
  let block = null;
  let modelId = "";

  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const num = (x) => Number(x).toLocaleString("en-US", { maximumFractionDigits: 0 });
  const money = (x) => "$" + (x >= 100 ? num(x) : Number(x.toPrecision(3)).toString());
  // cost of a million output tokens: price x GPUs / (tokens/s of the GPUs x 3600) x 1e6
  const cost = (price, gpus, tpsPerGpu) => (price * gpus) / (tpsPerGpu * gpus * 3600) * 1e6;

  function params() {
    const q = new URLSearchParams(location.search);
    return {
      model: q.get("model") || "",
      hw: (q.get("hw") || "").split(",").filter(Boolean),
      variant: q.get("variant") || "",
      variants: (q.get("variants") || "").split(",").filter(Boolean),
      price: q.get("price") || "",
    };
  }

  function state() {
    const by = ($("[data-cmp-by]:checked") || {}).value || "hw";
    return {
      model: $("[data-cmp-model]").value.trim(),
      by,
      variant: $("[data-cmp-variant]").value,
      hw: $$("[data-cmp-hw]:checked").map((b) => b.value),
      variants: $$("[data-cmp-variant-list] input:checked").map((b) => b.value),
      price: $("[data-cmp-price]").value,
    };
  }

  function writeUrl(s) {
    const q = new URLSearchParams();
    if (s.model) q.set("model", s.model);
    if (s.hw.length) q.set("hw", s.hw.join(","));
    if (s.by === "variant") { if (s.variants.length) q.set("variants", s.variants.join(",")); }
    else if (s.variant && s.variant !== "default") q.set("variant", s.variant);
    if (s.price) q.set("price", s.price);
    const text = q.toString().replace(/%2F/g, "/").replace(/%2C/g, ",");
    history.replaceState(null, "", location.pathname + (text ? "?" + text : ""));
  }

  function columns(s) {
    if (!block) return [];
    if (s.by === "variant") {
      const hw = s.hw[0];
      return s.variants.filter((v) => (block.variants[v] || {})[hw]).slice(0, 4)
        .map((v) => ({ hw, tree: v, e: block.variants[v][hw] }));
    }
    const per = block.variants[s.variant] || {};
    return s.hw.filter((h) => per[h]).slice(0, 4).map((h) => ({ hw: h, tree: s.variant, e: per[h] }));
  }

  function commandHtml(e, common) {
    const mark = (i) => common.has(i) ? esc(block.lines[i]) : "<mark>" + esc(block.lines[i]) + "</mark>";
    const env = e.env.map(mark).join("\n");
    const cmd = e.cmd.map(mark).join(esc(block.sep));
    return "<pre>" + (env ? env + "\n" : "") + cmd + "</pre>";
  }

  function render() {
    const s = state();
    writeUrl(s);
    const cols = columns(s);
    if (!block) { out.innerHTML = ""; return; }
    if (!cols.length) {
      status.textContent = s.by === "variant"
        ? "Pick one hardware profile and 2–4 variants that run on it."
        : "Pick 2–4 hardware profiles this variant runs on.";
      out.innerHTML = "";
      return;
    }
    status.textContent = cols.length === 1
      ? "Add 1–3 more " + (s.by === "variant" ? "variants" : "hardware profiles") + " to compare."
      : "Comparing " + cols.length + " columns of " + modelId + ".";
    const price = parseFloat(s.price);
    const common = new Set([].concat(...cols.map((c) => c.e.env.concat(c.e.cmd)))
      .filter((i) => cols.every((c) => c.e.env.includes(i) || c.e.cmd.includes(i))));
    const base = form.dataset.base;
    const rows = [
      ["Layout", (c) => c.e.gpus + " GPU" + (c.e.gpus > 1 ? "s" : "") + (c.e.tp ? " · TP " + c.e.tp : "") +
        (c.e.nodes > 1 ? " · " + c.e.nodes + " nodes" : " · " + c.e.replicas_per_node + " per node") +
        "<br><small>" + esc(c.e.strategy) + "</small>" +
        (c.e.verdict && c.e.verdict !== "fits" ? '<br><small class="over">cannot start as planned (' + esc(c.e.verdict) + ")</small>" : "")],
      ["KV cache", (c) => c.e.kv_tokens != null ? num(c.e.kv_tokens) + " tokens" : "—"],
      ["Concurrency", (c) => c.e.max_concurrency != null ? num(c.e.max_concurrency) + " requests of " +
        num(block.workload.prompt_tokens) + "+" + num(block.workload.output_tokens) + " tokens" : "—"],
      ["Est. tokens/s per GPU", (c) => c.e.est ? num(c.e.est[0]) + "–" + num(c.e.est[1]) +
        " <small>at " + c.e.est_c + " at once</small>" : "—"],
      ["Measured tokens/s per GPU", (c) => {
        const m = c.e.measured;
        if (!m) return "—";
        const src = m.url ? ' <a href="' + esc(m.url) + '">source</a>' : "";
        return num(m.tps) + " <small>" + esc(m.label) + " by " + esc(m.by) + ", " +
          (m.c ? m.c + " at once, " : "") + (m.input_len ? m.input_len + " in / " + m.output_len + " out" : "") +
          "</small>" + src;
      }],
      ["Cost per 1M output tokens", (c) => {
        if (!(price > 0)) return "<small>enter a price per GPU-hour</small>";
        const parts = [];
        if (c.e.measured) {
          const v = cost(price, c.e.measured.gpus, c.e.measured.tps);
          parts.push('<span data-cost="measured" data-value="' + v + '">' + money(v) + "</span> measured");
        }
        if (c.e.est) {
          const lo = cost(price, c.e.gpus, c.e.est[1]), hi = cost(price, c.e.gpus, c.e.est[0]);
          parts.push('<span data-cost="estimated" data-low="' + lo + '" data-high="' + hi + '">' +
            money(lo) + "–" + money(hi) + "</span> estimated");
        }
        return parts.join("<br>") || "—";
      }],
      ["Power", (c) => {
        const parts = [];
        if (c.e.board_w != null) parts.push(num(c.e.board_w) + " W board power");
        if (c.e.measured && c.e.measured.avg_w != null) parts.push(num(c.e.measured.avg_w) + " W measured average");
        return parts.join("<br>") || "—";
      }],
      ["Command", (c) => commandHtml(c.e, common)],
    ];
    const head = cols.map((c) => {
      const href = base + "/" + modelId + "/?hardware=" + encodeURIComponent(c.hw) +
        (c.e.variant !== "default" ? "&variant=" + encodeURIComponent(c.e.variant) : "");
      return '<th scope="col" data-col="' + esc(c.hw + ":" + c.tree) + '"><a href="' + esc(href) + '">' +
        esc(hwLabels[c.hw] || c.hw) + "</a><br><small>" + esc(c.e.variant) + "</small></th>";
    }).join("");
    out.innerHTML = "<table><thead><tr><th></th>" + head + "</tr></thead><tbody>" +
      rows.map(([label, cell]) => '<tr><th scope="row">' + label + "</th>" +
        cols.map((c) => "<td>" + cell(c) + "</td>").join("") + "</tr>").join("") + "</tbody></table>";
  }

  function fillVariants(wanted, wantedList) {
    const keys = Object.keys(block.variants);
    const sel = $("[data-cmp-variant]");
    sel.innerHTML = keys.map((k) => '<option value="' + esc(k) + '">' + esc(k) + "</option>").join("");
    sel.value = keys.includes(wanted) ? wanted : keys[0];
    $("[data-cmp-variant-list]").innerHTML = keys.map((k) => '<label><input type="checkbox" value="' +
      esc(k) + '"' + (wantedList.includes(k) ? " checked" : "") + "> " + esc(k) + "</label>").join("");
  }

  function offered() {
    const s = state();
    const per = s.by === "variant" ? null : (block && block.variants[s.variant]) || {};
    $$("[data-cmp-hw]").forEach((b) => { b.disabled = per !== null && !(b.value in per); });
    $("[data-cmp-variants]").hidden = s.by !== "variant";
    $("[data-cmp-variant]").parentNode.hidden = s.by === "variant";
  }

  async function load(id, p) {
    modelId = id;
    block = null;
    if (!id) { status.textContent = "Pick a model."; render(); return; }
    status.textContent = "Loading " + id + "…";
    try {
      docs[id] = docs[id] || await (await fetch(form.dataset.docs + id + ".json")).json();
    } catch (err) {
      status.textContent = "No model " + id + " in the API.";
      return;
    }
    if (id !== modelId) return;
    block = docs[id].compare || null;
    if (!block) { status.textContent = id + " has no comparison data."; render(); return; }
    fillVariants(p.variant || "default", p.variants || []);
    offered();
    render();
  }

  async function start() {
    const p = params();
    $("[data-cmp-model]").value = p.model;
    $("[data-cmp-price]").value = p.price;
    $$("[data-cmp-hw]").forEach((b) => { b.checked = p.hw.includes(b.value); });
    if (p.variants.length) $('[data-cmp-by][value="variant"]').checked = true;
    form.addEventListener("change", (ev) => {
      if (ev.target.matches("[data-cmp-model]")) {
        const s = state();
        load(s.model, { variant: s.variant, variants: s.variants });
        return;
      }
      offered();
      render();
    });
    $("[data-cmp-price]").addEventListener("input", render);
    form.addEventListener("submit", (ev) => ev.preventDefault());
    await load(p.model, p);
    fetch(form.dataset.models).then((r) => r.json()).then((index) => {
      document.getElementById("cmp-models").innerHTML = index.models
        .map((m) => '<option value="' + esc(m.id) + '">' + esc(m.title || m.id) + "</option>").join("");
    }).catch(() => {});
  }
  start();
})();
