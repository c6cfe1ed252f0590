// 听牌 hints (a table with hints on; docs/hints.md, "On the table page"): the panel under the own
// hand, the hand tiles' ready marks and the claim buttons' verdicts, from `hand.hints`
// (docs/protocol.md; the server's games/engine/insight/hints.py HintSet.to_json()).  Null hints:
// nothing is shown.

import { clear, h } from "./dom.js";
import { LANG, t } from "./i18n.js";

const ZH_COUNTS = ["", "一", "二", "三", "四", "五", "六", "七", "八"];
const VERDICTS = ["wins", "improves", "keeps", "worsens"];

/** The seat's hints in this frame, or null (no hints table, no decision, not seated, hand over). */
export function hintsOf(frame) {
  const hand = frame?.hand;
  if (!hand || hand.status !== "playing" || frame.you === null || frame.you === undefined) return null;
  const hints = hand.hints;
  return hints && typeof hints === "object" ? hints : null;
}

/** "听牌" / "一向听" / "Ready" / "2 from ready". */
export function distanceText(d) {
  if (d === null || d === undefined) return "";
  if (d === 0) return t("hint_ready");
  if (LANG === "zh" && ZH_COUNTS[d]) return t("hint_distance_zh", { n: ZH_COUNTS[d] });
  return t("hint_distance", { n: d });
}

/** The discards (tile codes) that keep the hand ready. */
export function readyTiles(hints) {
  return new Set((hints?.discards || []).filter((d) => d.ready || d.distance === 0).map((d) => d.tile));
}

/** Do two actions name the same claim (the seat aside)? */
function sameAction(a, b) {
  if (!a || !b || a.do !== b.do) return false;
  for (const key of ["tile", "tiles"]) {
    if (a[key] !== undefined && b[key] !== undefined && a[key] !== b[key]) return false;
  }
  return true;
}

/** The verdict ("wins" / "improves" / "keeps" / "worsens") for a legal claim action, or null. */
export function claimVerdict(hints, action) {
  const found = (hints?.claims || []).find((c) => sameAction(c.action, action));
  return found && VERDICTS.includes(found.verdict) ? found.verdict : null;
}

/** The small verdict tag set inside a claim button. */
export function verdictTag(verdict) {
  if (!verdict) return null;
  return h(
    "span",
    { class: `act-hint verdict-${verdict}`, dataset: { verdict }, title: t(`hint_verdict_${verdict}_title`) },
    t(`hint_verdict_${verdict}`),
  );
}

/** The rows shown: every discard that keeps the hand ready, else those that keep it closest. */
export function shownDiscards(hints) {
  const all = hints?.discards || [];
  const ready = all.filter((d) => d.distance === 0);
  const low = all.length ? Math.min(...all.map((d) => d.distance)) : null;
  const rows = ready.length ? ready : all.filter((d) => d.distance === low);
  const weight = (d) => (d.best ? 0 : 1) + (d.improves ? 0 : 0.5);
  const unseen = (d) => (d.waits || d.useful)?.unseen ?? 0;
  return [...rows].sort((a, b) => weight(a) - weight(b) || unseen(b) - unseen(a));
}

/** Tiles with their unseen counts, or 任意牌 / any tile. */
function waitsEl(waits, tileOf, w, cls) {
  if (waits.any_tile) return h("span", { class: `${cls} hint-any`, dataset: { any: "1" } }, t("hint_any_tile"));
  return h(
    "span",
    { class: cls },
    waits.tiles.map((x) =>
      h(
        "span",
        { class: `hint-wait${x.unseen ? "" : " dead"}`, dataset: { tile: x.tile, unseen: x.unseen }, title: t("hint_unseen_title", { n: x.unseen }) },
        tileOf(x.tile, w),
        h("span", { class: "hint-count" }, `×${x.unseen}`),
      ),
    ),
  );
}

/**
 * Fill the panel.  tileOf(code, w) draws a tile; onHover(code | null) lights the hand's tiles.
 * Returns the panel's rows by tile code (for lighting a row from the hand).
 */
export function renderHints(el, hints, { tileOf, onHover, phone = false }) {
  el.dataset.phone = phone ? "1" : "0";
  if (!hints) {
    el.hidden = true;
    delete el.dataset.distance;
    clear(el);
    return new Map();
  }
  el.hidden = false;
  const w = phone ? 24 : 28;
  const rows = new Map();
  const d = hints.distance;
  const head = h(
    "div",
    { class: "hints-head" },
    h("span", { class: "hints-title" }, t("hints_title")),
    d !== null && d !== undefined
      ? h("span", { class: `hints-distance${d === 0 ? " ready" : ""}`, id: "mj-hints-distance", dataset: { distance: d } }, distanceText(d))
      : null,
  );
  el.dataset.distance = d === null || d === undefined ? "" : String(d);
  const body = [];
  if (hints.waits && !(hints.discards || []).length) {
    body.push(
      h(
        "div",
        { class: "hint-row waiting", id: "mj-hints-waiting" },
        h("span", { class: "hint-label" }, t("hint_waiting_on")),
        waitsEl(hints.waits, tileOf, w, "hint-waits"),
        hints.waits.any_tile ? null : h("span", { class: "hint-total" }, t("hint_total", { n: hints.waits.unseen })),
      ),
    );
  }
  const shown = shownDiscards(hints);
  const allBest = shown.every((dh) => dh.best);
  const chip = (dh) => {
    const el = h(
      "span",
      {
        class: `hint-tile${dh.best && !allBest ? " best" : ""}${dh.improves ? " improves" : ""}`,
        dataset: { tile: dh.tile, distance: dh.distance, best: dh.best ? "1" : "0", improves: dh.improves ? "1" : "0" },
        onmouseenter: () => onHover(dh.tile),
        onmouseleave: () => onHover(null),
      },
      tileOf(dh.tile, w),
    );
    rows.set(dh.tile, el);
    return el;
  };
  const tags = (dh) => [
    dh.best && !allBest ? h("span", { class: "hint-tag best" }, t("hint_best")) : null,
    dh.improves ? h("span", { class: "hint-tag improves" }, t("hint_improves")) : null,
  ];
  if (shown.length && shown[0].distance === 0) {
    // Ready after these discards: one row each, with what it would wait on.
    for (const dh of shown) {
      const parts = [h("span", { class: "hint-label" }, t("hint_discard")), chip(dh), h("span", { class: "hint-label" }, t("hint_waits"))];
      if (dh.waits) {
        parts.push(waitsEl(dh.waits, tileOf, w, "hint-waits"));
        if (!dh.waits.any_tile) parts.push(h("span", { class: "hint-total" }, t("hint_total", { n: dh.waits.unseen })));
      }
      body.push(
        h(
          "div",
          { class: `hint-row hint-discard ready${dh.best && !allBest ? " best" : ""}${dh.improves ? " improves" : ""}`, dataset: { tile: dh.tile, distance: 0 } },
          parts,
          tags(dh),
        ),
      );
    }
  } else if (shown.length) {
    // Not ready: the discards that keep the hand closest, in one row (the same distance after each).
    const dh = shown[0];
    const useful = shown.filter((x) => x.useful && !x.useful.any_tile);
    body.push(
      h(
        "div",
        { class: `hint-row hint-discard group${dh.improves ? " improves" : ""}`, dataset: { tile: shown.map((x) => x.tile).join(" "), distance: dh.distance } },
        h("span", { class: "hint-label" }, t("hint_discard")),
        h("span", { class: "hint-choices" }, shown.map(chip)),
        h("span", { class: "hint-arrow" }, "→"),
        h("span", { class: "hint-after" }, distanceText(dh.distance)),
        dh.improves ? h("span", { class: "hint-tag improves" }, t("hint_improves")) : null,
        useful.length ? h("span", { class: "hint-total" }, t("hint_useful_n", { n: Math.max(...useful.map((x) => x.useful.unseen)) })) : null,
        !allBest ? h("span", { class: "hint-tag best" }, t("hint_best")) : null,
      ),
    );
  }
  if ((hints.claims || []).length && !body.length) {
    body.push(h("div", { class: "hint-row hint-claims-note" }, t("hint_claims_note")));
  }
  clear(el, head, body.length ? h("div", { class: "hints-rows", id: "mj-hints-rows" }, body) : null);
  return rows;
}
