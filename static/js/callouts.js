// On-felt call-outs: 吃 / 碰 / 杠 / 和 / 自摸 and the rule sets' own (抢金, 游金, 报听, 飘, …) shown
// briefly by the seat that acted, and the win's short animation.
//
// Read only from what the reader's frames already carry: a step's events (docs/protocol.md) and
// the pre-hand question's answers on the table — never a tile, only who did what.  Under
// prefers-reduced-motion nothing moves: the call-out is shown still, then removed.

import { chairOfWind, motionAllowed, sideOf } from "./board.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const CALLOUT_MS = 1400;
// The win's call-out and burst: the result screen waits this long before it covers the felt.
export const WIN_MS = 1300;

const CLAIMS = { chow: "callout_chow", pung: "callout_pung", kong: "callout_kong", add_kong: "callout_kong" };
const WIN_SOURCES = {
  self_draw: "callout_self_draw",
  robbing_kong: "callout_rob_kong",
  rob_gold: "callout_rob_gold",
  robbing_concealed_kong: "callout_rob_concealed_kong",
};
const WIN_KINDS = {
  you_single: "callout_you_1",
  you_double: "callout_you_2",
  you_triple: "callout_you_3",
  three_golds: "callout_three_golds",
  rob_gold: "callout_rob_gold",
};
// Events that end in a win in the same step say it once, by the win's own call-out.
const BEFORE_WIN = new Set(["rob_gold", "three_golds", "auto_win"]);

/**
 * The call-outs of one frame: [{chair, key, text, win}].  `prev` is the frame before it (for the
 * pre-hand answers), `frame` the new one; a snapshot (a page load, a resync) calls nothing out.
 */
export function calloutsOf(prev, frame) {
  if (!frame || frame.type === "snapshot") return [];
  const out = [];
  const hand = frame.hand;
  const events = frame.events || [];
  const winning = events.some((e) => e.kind === "win");
  const result = hand?.view?.result || null;
  const chairOf = (wind) => (hand?.winds ? chairOfWind(hand, wind) : null);
  const add = (wind, key, vars = {}, win = false) => {
    const chair = chairOf(wind);
    if (chair !== null && !out.some((c) => c.chair === chair && c.key === key)) out.push({ chair, key, text: t(key, vars), win });
  };
  for (const e of events) {
    if (CLAIMS[e.kind]) add(e.seat, CLAIMS[e.kind]);
    else if (e.kind === "ready") add(e.seat, "callout_ready");
    else if (e.kind === "you" && [1, 2, 3].includes(Number(e.level))) add(e.seat, `callout_you_${Number(e.level)}`);
    else if (e.kind === "rob_gold" && !winning) add(e.seat, "callout_rob_gold");
    else if (e.kind === "win") add(e.seat, winKey(e, result), {}, true);
    else if (BEFORE_WIN.has(e.kind) && !winning) add(e.seat, `callout_${e.kind}`);
  }
  out.push(...piaoCallouts(prev, frame));
  return out;
}

function winKey(event, result) {
  const kind = result?.win_kind;
  if (kind && WIN_KINDS[kind]) return WIN_KINDS[kind];
  return WIN_SOURCES[event.source] || "callout_win";
}

/** 东北's 飘: a chair that has just answered the question with a bet (不飘 is no call-out). */
function piaoCallouts(prev, frame) {
  const pre = frame.table?.pre_hand;
  const before = prev?.table?.pre_hand;
  if (pre?.key !== "piao" || !before || before.key !== "piao") return [];
  const out = [];
  for (const [chair, value] of Object.entries(pre.answers || {})) {
    const n = Number(value);
    if (before.answers?.[chair] === undefined && Number.isFinite(n) && n > 0) {
      out.push({ chair: Number(chair), key: "callout_piao", text: t("callout_piao", { n }), win: false });
    }
  }
  return out;
}

/**
 * Show `callouts` on the felt `stage` by each acting seat (its side as the reader sits); a win's
 * call-out is larger, with a burst behind it.  Each goes by itself after a moment.
 */
export function showCallouts(stage, frame, callouts) {
  const moving = motionAllowed();
  for (const c of callouts) {
    const side = ["bottom", "right", "top", "left"][sideOf(c.chair, frame.you)];
    const el = h(
      "div",
      {
        class: `callout callout-${side}${c.win ? " callout-win" : ""}${moving ? " moving" : ""}`,
        role: "status",
        dataset: { key: c.key, chair: String(c.chair) },
      },
      c.win ? h("span", { class: "callout-burst", "aria-hidden": "true" }) : null,
      h("span", { class: "callout-text" }, c.text),
    );
    stage.append(el);
    setTimeout(() => el.remove(), c.win ? Math.max(WIN_MS, CALLOUT_MS) : CALLOUT_MS);
  }
}
