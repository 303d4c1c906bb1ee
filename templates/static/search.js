/* recipes-site: the header search dropdown, loaded by site.js on the first focus of the header's
   search box (so pages that never search do not carry it). An ARIA combobox: the box keeps the
   focus, Up/Down move the active option (aria-activedescendant), Enter opens it, Escape closes
   the list. Empty box: the latest recipes (search.py `latest_records`), "Browse all", the
   tasks and the largest providers to browse by; typing: matching providers and recipes from
   the search shards, found as the home page finds them (site.js `matcher` over `recordText`).
   Providers and tasks link to the provider pages and the home page's task facet (`?task=`). */
(() => {
"use strict";
const S = window.recipesSite, box = S && S.$("[data-site-search]");
if (!box || box.dataset.ready) return;
box.dataset.ready = "1";
const { h, $$ } = S, list = document.getElementById(box.getAttribute("aria-controls"));
const home = box.form.getAttribute("action"), root = home.endsWith("/") ? home : home + "/";
let index = null, records = null, options = [], active = -1, ticket = 0;
const HEADER = root + "api/v1/search/header.json";   /* search.py HEADER_DOC */

const load = () => index || (index = fetch(HEADER, { cache: "no-cache" })
  .then(r => { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); }));
const allRecords = M => records || (records = S.shardLoader(M.shards).all()
  .then(rs => rs.map(r => [r, S.indexText(S.recordText(r, M.hardware))])));

const option = (href, text, sub) => ({ href, text, sub });
const heading = text => ({ text });
function show(items) {
  options = items.filter(i => i.href);
  active = -1;
  box.removeAttribute("aria-activedescendant");
  let n = 0;
  list.replaceChildren(...items.map(i => i.href
    ? h("li", { role: "option", id: "ss-" + n++, "aria-selected": "false", "data-href": i.href },
      h("b", { text: i.text }), i.sub ? h("small", { text: i.sub }) : null)
    : h("li", { role: "presentation", class: "ss-h", text: i.text })));
  list.hidden = !items.length;
  box.setAttribute("aria-expanded", String(!list.hidden));
}
const close = () => { list.hidden = true; box.setAttribute("aria-expanded", "false"); box.removeAttribute("aria-activedescendant"); active = -1; };
function move(i) {
  const els = $$("[role=option]", list);
  if (!els.length) return;
  active = (i + els.length) % els.length;
  els.forEach((el, k) => el.setAttribute("aria-selected", String(k === active)));
  box.setAttribute("aria-activedescendant", els[active].id);
  els[active].scrollIntoView({ block: "nearest" });
}

async function update() {
  const mine = ++ticket, q = box.value.trim();
  let M;
  try { M = await load(); } catch (e) { index = null; return; }
  if (mine !== ticket || document.activeElement !== box) return;
  if (!q) {
    show([heading("Latest"), ...M.latest.map(r => option(root + r.id + "/", r.title, r.id + " · " + r.sub)),
      option(root, "Browse all " + M.total.toLocaleString("en-US") + " recipes"),
      heading("Browse by task"), ...M.tasks.map(([t, label, n]) => option(root + "?task=" + encodeURIComponent(t), label, n + " recipes")),
      heading("Browse by provider"), ...M.providers.slice(0, 5).map(([org, name, n]) => option(root + org + "/", name, n + (n === 1 ? " recipe" : " recipes")))]);
    return;
  }
  let rs;
  try { rs = await allRecords(M); } catch (e) { records = null; return; }
  if (mine !== ticket) return;
  const match = S.matcher(q), found = rs.filter(([, ix]) => match(ix)).map(([r]) => r);
  const provs = M.providers.filter(([org, name]) => match(S.indexText(org + " " + name))).slice(0, 3);
  show([...(provs.length ? [heading("Providers")] : []),
    ...provs.map(([org, name, n]) => option(root + org + "/", name, n + (n === 1 ? " recipe" : " recipes"))),
    ...(found.length ? [heading("Recipes")] : []),
    ...found.slice(0, 6).map(r => option(root + r.id + "/", r.title, [r.id, r.params_label].filter(Boolean).join(" · "))),
    option(root + "?q=" + encodeURIComponent(q), found.length ? "Browse " + found.length + " matching recipes" : "No recipe matches: search the catalog", "q = \u201c" + q + "\u201d")]);
}

box.addEventListener("input", update);
box.addEventListener("focus", update);
box.addEventListener("blur", () => setTimeout(() => { if (document.activeElement !== box) close(); }, 150));
box.addEventListener("keydown", e => {
  const open = !list.hidden;
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    if (!open) { update(); return; }
    move(e.key === "ArrowDown" ? active + 1 : active < 0 ? -1 : active - 1);
  } else if (e.key === "Enter" && open && active >= 0) {
    e.preventDefault();
    location.assign(options[active].href);
  } else if (e.key === "Escape" && open) {
    e.preventDefault();
    close();
  }
});
list.addEventListener("mousedown", e => e.preventDefault());  /* the box keeps the focus */
list.addEventListener("click", e => { const o = e.target.closest("[role=option]"); if (o) location.assign(o.dataset.href); });
if (document.activeElement === box) update();
})();
