// 听牌 hints (a table with hints on; docs/hints.md, "On the table page"): the panel under the own
// hand, the hand tiles' ready marks and the claim buttons' verdicts, from `hand.hints`
// (docs/protocol.md; the server's games/engine/insight/hints.py HintSet.to_json()).  Between
// the player's decisions the panel keeps the last hints of the hand, marked as the last turn's;
// once the hand is over (or at a table without hints) nothing is shown.

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

// Not ready: the discards ranked (the server's `rank`: the lowest distance, then the most unseen
// tiles that lower it), those of equal rank in one row; the first rows only.
const RANKED_ROWS = { desktop: 5, phone: 3 };

/** Not ready: the discards grouped by rank, best first: [[hint, ...], ...]. */
export function rankedGroups(hints) {
  const rankOf = (d) => d.rank ?? (d.best ? 1 : 2);
  const groups = new Map();
  for (const d of [...(hints?.discards || [])].sort((a, b) => rankOf(a) - rankOf(b))) {
    const key = rankOf(d);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(d);
  }
  return [...groups.values()];
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

// The panel's last hints and their hand, per panel element.
const kept = new WeakMap();

/**
 * Fill the panel.  tileOf(code, w) draws a tile; onHover(code | null) lights the hand's tiles;
 * hand: the playing hand's id (null: none), for keeping the last hints between decisions.
 * Returns the panel's rows by tile code (for lighting a row from the hand).
 */
export function renderHints(el, hints, { tileOf, onHover, phone = false, hand = null }) {
  el.dataset.phone = phone ? "1" : "0";
  // Between decisions of the same hand: the last hints, marked as the last turn's (the hand
  // has moved on, so they light nothing in it).
  let stale = false;
  if (hints) {
    kept.set(el, { hand, hints });
  } else if (hand !== null && kept.get(el)?.hand === hand) {
    hints = kept.get(el).hints;
    stale = true;
    onHover = () => {};
  } else {
    kept.delete(el);
  }
  el.classList.toggle("stale", stale);
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
    stale ? h("span", { class: "hint-tag last-turn", id: "mj-hints-last" }, t("hint_last_turn")) : null,
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
    // Not ready: a row per rank, best first: the discards of that rank, the distance they leave
    // and how many unseen tiles would bring the hand closer after them.
    const groups = rankedGroups(hints).slice(0, phone ? RANKED_ROWS.phone : RANKED_ROWS.desktop);
    const several = groups.length > 1;
    for (const group of groups) {
      const dh = group[0];
      const best = several && (dh.rank ?? 1) === 1;
      const count = dh.useful && !dh.useful.any_tile ? dh.useful.unseen : null;
      body.push(
        h(
          "div",
          {
            class: `hint-row hint-discard group${best ? " best" : ""}${dh.improves ? " improves" : ""}`,
            dataset: { tile: group.map((x) => x.tile).join(" "), distance: dh.distance, rank: dh.rank ?? 1 },
          },
          h("span", { class: "hint-label" }, t("hint_discard")),
          h("span", { class: "hint-choices" }, group.map(chip)),
          h("span", { class: "hint-arrow" }, "→"),
          h("span", { class: "hint-after" }, distanceText(dh.distance)),
          count !== null ? h("span", { class: "hint-total", dataset: { unseen: count } }, t("hint_improving_n", { n: count })) : null,
          dh.useful?.any_tile ? h("span", { class: "hint-total hint-any", dataset: { any: "1" } }, t("hint_any_tile")) : null,
          dh.improves ? h("span", { class: "hint-tag improves" }, t("hint_improves")) : null,
          best ? h("span", { class: "hint-tag best" }, t("hint_best")) : null,
        ),
      );
    }
  }
  if ((hints.claims || []).length && !body.length) {
    body.push(h("div", { class: "hint-row hint-claims-note" }, t("hint_claims_note")));
  }
  clear(el, head, body.length ? h("div", { class: "hints-rows", id: "mj-hints-rows" }, body) : null);
  return rows;
}
