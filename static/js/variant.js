// What the rule sets put on the table, made readable: the wild's name and mark (财神 / 得 / 金),
// 白板 stand-ins, every entry of `view.table`, public player flags, the bets of the hand
// (买底 / 顶底 / 飘) and the pre-hand questions' words.  Unknown keys, flags and answers are
// shown generically by name, so a new rule set shows everything before it is given words.

import { h } from "./dom.js";
import { LANG, has, t, windName } from "./i18n.js";
import { parseTiles, tileEl } from "./tiles.js";

const SEATS = "ESWN";

function tiles(code, w = 22) {
  return parseTiles(code).map((c) => tileEl(c, { w, lang: LANG }));
}

/** The wild's name and the mark on wild tiles: 财神/财, 得/得, 金/金. */
export function wildWords(info) {
  if (info?.de) return { label: t("de"), mark: "得" };
  if (info?.gold) return { label: t("gold"), mark: "金" };
  return { label: t("wild"), mark: "财" };
}

/**
 * 白板 tiles that play another face, as {physical: face}: `stand_in` ("P=3p", 温州 and 浙东得),
 * or 漳州's 白板 playing the 金 unless the 金 is 白板 itself (正金).
 */
export function standIns(info) {
  const out = {};
  for (const pair of String(info?.stand_in || "").split(/[\s,;]+/)) {
    const [from, to] = pair.split("=");
    if (from && to) out[from] = to;
  }
  if (info?.gold && info.zheng_jin === false && info.gold !== "P" && !out.P) out.P = info.gold;
  return out;
}

/** The count of tiles left that matters for play: normal draws (`live_left`, `drawable`) or the wall. */
export function drawableLeft(view) {
  const info = view.table || {};
  if (typeof info.live_left === "number") return info.live_left;
  if (typeof info.drawable === "number") return info.drawable;
  return view.wall_left;
}

// Keys the centre panel shows as tiles of its own (the wild, the indicator), or as the count.
const CENTRE_KEYS = new Set(["wilds", "indicator", "flipped", "de", "gold", "live_left", "drawable"]);
const TILE_KEYS = new Set(["wilds", "indicator", "flipped", "de", "gold", "nianzhuang"]);

/** The centre's marks: [{key, label, tiles: [codes]}] — indicator / flipped, the wild, other face-up tiles. */
export function centreMarks(view) {
  const info = view.table || {};
  const marks = [];
  const wild = parseTiles(info.wilds || info.de || info.gold || "");
  const same = (a, b) => a.length === b.length && a.every((c, i) => c === b[i]);
  const indicator = parseTiles(info.indicator || "");
  if (indicator.length) marks.push({ key: "indicator", label: t("indicator"), tiles: indicator });
  const flipped = parseTiles(info.flipped || "");
  const flippedIsWild = flipped.length > 0 && same(flipped, wild);
  if (flipped.length && !flippedIsWild && !same(flipped, indicator)) marks.push({ key: "flipped", label: t("flipped"), tiles: flipped });
  if (wild.length) {
    const words = wildWords(info);
    marks.push({ key: "wild", label: flippedIsWild ? `${t("flipped")} · ${words.label}` : words.label, tiles: wild, wild: true, mark: words.mark });
  }
  const shown = new Set(marks.flatMap((m) => m.tiles));
  const faceUp = parseTiles(view.face_up || "").filter((c) => !shown.has(c));
  if (faceUp.length) marks.push({ key: "face_up", label: t("face_up"), tiles: faceUp });
  return marks;
}

function yesNo(v) {
  return v ? t("yes") : t("no");
}

function winds(list) {
  const ws = (Array.isArray(list) ? list : String(list || "").split(/[\s,]+/)).filter(Boolean);
  return ws.length ? ws.map((w) => windName(w)).join(" ") : t("none");
}

function generic(value) {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "boolean") return yesNo(value);
  if (Array.isArray(value)) return value.length ? value.map(generic).join(" ") : t("none");
  if (typeof value === "object") {
    const parts = Object.entries(value).map(([k, v]) => `${SEATS.includes(k) && k.length === 1 ? windName(k) : k} ${generic(v)}`);
    return parts.length ? parts.join(" · ") : t("none");
  }
  return String(value);
}

function infoValue(key, value) {
  switch (key) {
    case "stand_in": {
      const pairs = Object.entries(standIns({ stand_in: value }));
      if (!pairs.length) return t("none");
      return pairs.map(([from, to]) => h("span", { class: "info-pair" }, tiles(from, 18), "=", tiles(to, 18)));
    }
    case "dealer_streak":
      return t("dealer_streak_value", { n: value });
    case "die":
      return t("die_value", { n: value });
    case "buy_base":
    case "final_round":
    case "zheng_jin":
    case "gold_in_wall":
      return yesNo(value);
    case "counter_base":
    case "double_you":
      return winds(value);
    case "live_left":
    case "drawable":
    case "dead_wall":
      return t("n_tiles", { n: value });
    case "fenbing_rounds":
      return t("n_rounds", { n: value });
    case "piao": {
      const parts = Object.entries(value || {}).filter(([, n]) => n);
      return parts.length ? parts.map(([w, n]) => `${windName(w)}×${n}`).join(" ") : t("none");
    }
    case "you": {
      const parts = Object.entries(value || {}).filter(([, n]) => n);
      return parts.length ? parts.map(([w, n]) => `${windName(w)} ${flagWord("you", n) || n}`).join(" ") : t("none");
    }
    default:
      if (TILE_KEYS.has(key) && typeof value === "string") return tiles(value, 18);
      return generic(value);
  }
}

/**
 * The rows of the table-info panel: every entry of `view.table` that the centre does not
 * already show (the wild, the indicator, the drawable count are there), labelled.
 */
export function infoRows(view) {
  const info = view.table || {};
  const rows = [];
  for (const [key, value] of Object.entries(info)) {
    if (CENTRE_KEYS.has(key)) continue;
    const label = has(`info_${key}`) ? t(`info_${key}`) : key;
    rows.push({ key, label, value: infoValue(key, value) });
  }
  // The wall behind the drawable count, when the two differ.
  if ((typeof info.live_left === "number" || typeof info.drawable === "number") && drawableLeft(view) !== view.wall_left) {
    rows.push({ key: "wall_left", label: t("info_wall_left"), value: t("n_tiles", { n: view.wall_left }) });
  }
  return rows;
}

function flagWord(flag, value) {
  if (flag === "xianggong") return t("xianggong");
  if (flag === "ready") return t("flag_ready");
  if (flag === "you") return has(`flag_you_${value}`) ? t(`flag_you_${value}`) : `${t("info_you")} ${value}`;
  return null;
}

/** Badges for a player's public flags; unknown flags by name (with their value unless `true`). */
export function flagBadges(flags) {
  const out = [];
  for (const [flag, value] of Object.entries(flags || {})) {
    if (value === false || value === null || value === undefined || value === 0 || value === "") continue;
    if (Array.isArray(value) && !value.length) continue;
    const word = flagWord(flag, value);
    const text = word ?? (value === true ? flag : `${flag} ${generic(value)}`);
    const title = flag === "ready" ? t("flag_ready_title") : flag;
    out.push(h("span", { class: `badge flag flag-${flag.replace(/[^\w-]/g, "_")}`, title, dataset: { flag } }, text));
  }
  return out;
}

/** The bets of the hand for one seat (from `view.table`): 买底, 顶底, 飘 ×N. */
export function betBadges(info, wind) {
  const out = [];
  if (!info || !wind) return out;
  if (wind === "E" && info.buy_base === true) out.push(h("span", { class: "badge bet", dataset: { bet: "buy_base" } }, t("bet_buy_base")));
  const counter = Array.isArray(info.counter_base) ? info.counter_base : String(info.counter_base || "").split(/[\s,]+/);
  if (counter.includes(wind)) out.push(h("span", { class: "badge bet", dataset: { bet: "counter_base" } }, t("bet_counter_base")));
  const piao = info.piao?.[wind];
  if (piao) out.push(h("span", { class: "badge bet", dataset: { bet: "piao" } }, t("bet_piao", { n: piao })));
  return out;
}

// ---------------------------------------------------------------------------- pre-hand questions
/** A choice's button text: 买 / 不买, 顶 / 不顶, 飘 ×N (0: 不飘); others as themselves. */
export function choiceLabel(key, value) {
  if (typeof value === "boolean") {
    return has(`choice_${key}_${value}`) ? t(`choice_${key}_${value}`) : t(`choice_${value}`);
  }
  if (key === "piao" && typeof value === "number") return value === 0 ? t("choice_piao_0") : t("choice_piao_n", { n: value });
  return generic(value);
}

/** An answer as a plate badge reads it: 买底 / 不买底, 顶底 / 不顶, 飘×N / 不飘. */
export function answerLabel(pre, value) {
  const key = pre.key;
  if (typeof value === "boolean" && has(`answer_${key}_${value}`)) return t(`answer_${key}_${value}`);
  if (key === "piao" && typeof value === "number") return value === 0 ? t("choice_piao_0") : t("bet_piao", { n: value });
  return `${questionLabel(pre)} ${choiceLabel(key, value)}`;
}

export function questionLabel(pre) {
  if (LANG === "en" && has(`question_${pre.key}`)) return t(`question_${pre.key}`);
  return pre.label || pre.key;
}

export function questionExplain(pre) {
  return has(`pre_hand_explain_${pre.key}`) ? t(`pre_hand_explain_${pre.key}`) : t("pre_hand_explain_other");
}

/** The upcoming hand's seat wind of a chair while a pre-hand question is open. */
export function upcomingWind(table, chair) {
  return SEATS[(chair - (table.dealer_position ?? 0) + 4) % 4];
}
