// Score breakdown lines in the reader's language, rendered from each line's structured data
// (docs/scoring.md "Breakdown line data"): `code` names the item, `unit` says what `value`
// counts, `params` holds the named numbers, tiles (tile codes) and seats (seat winds).  The
// engine's own `label` / `detail` text (Chinese rule terms, English notes) is never shown.
//
// The words live here rather than in i18n.js: they are one block, keyed by item code, and the
// engine's tests check that every code a rule set produces has an entry in ITEMS.  Each is an
// English message of the djangojs gettext catalog, its Chinese in
// locale/zh_Hans/LC_MESSAGES/djangojs.po (docs/ui.md, "The table's words: one gettext catalog").

import { h } from "./dom.js";
import { LANG, windName } from "./i18n.js";
import { parseTiles, tileEl } from "./tiles.js";

// The catalog's functions (i18n.js says why the fallbacks).
const catalog = globalThis.django ?? {};
const gettext = catalog.gettext ?? ((msgid) => msgid);
const pgettext = catalog.pgettext ?? ((_context, msgid) => msgid);

/** Every breakdown item code: its name, an English message of the djangojs catalog (i18n.js). */
export const ITEMS = {
  // hand kinds and patterns
  discard: gettext("Win on a discard"),
  robbing_kong: gettext("Robbing a kong"),
  self_draw: gettext("Self-drawn win"),
  kong_bloom: gettext("Win on a kong's replacement tile"),
  four_wilds: gettext("Four wild tiles"),
  heaven: gettext("Heavenly hand"),
  earth: gettext("Earthly hand"),
  hand_value: gettext("Winning hand"),
  three_caishen_hard: gettext("Three wilds, natural shape"),
  three_caishen_soft: gettext("Three wilds, any shape"),
  hard_eight_pairs: gettext("Eight natural pairs"),
  soft_eight_pairs: gettext("Eight pairs with wilds"),
  single_wait: gettext("Single wait"),
  all_pungs: gettext("All pungs"),
  flush: gettext("One suit"),
  caishen_pair: gettext("Waiting on a wild"),
  plain: gettext("Plain win"),
  soft: gettext("Soft hand"),
  self_draw_double: gettext("Self-draw doubles"),
  hand_score: gettext("Hand score"),
  caishen_score: gettext("Wild-tile score"),
  kong_score: gettext("Kong score"),
  follow_wind: gettext("Followed discards"),
  dealer: pgettext("dealer", "Dealer"),
  exhaustive_draw: gettext("Drawn hand"),
  // 东北
  ready: gettext("Ready declared"),
  seven_pairs: gettext("Seven pairs"),
  closed: gettext("Closed hand"),
  one_left: gettext("One tile left in hand"),
  half_flush: gettext("One suit with honours"),
  full_flush: gettext("One suit"),
  double_sequence: gettext("Two identical runs"),
  triple_sequence: gettext("Three identical runs"),
  four_alike: gettext("Four of a kind (not a kong)"),
  kong_deal_in: gettext("Discard after a kong"),
  deal_in: gettext("Dealt in"),
  thirteen_orphans: gettext("Thirteen orphans"),
  payment: gettext("Payment"),
  kong_points: gettext("Kong points"),
  nianzhuang: gettext("All followed the dealer's lead"),
  piao: gettext("Piao bet"),
  // 漳州
  rob_gold: gettext("Robbing the gold"),
  you_single: gettext("Single gold tour"),
  you_double: gettext("Double gold tour"),
  you_triple: gettext("Triple gold tour"),
  three_golds: gettext("Three golds"),
  winner_points: gettext("Winner's flower and kong points"),
  hand: gettext("Winning hand"),
  contract: gettext("Discarder pays for all"),
  fenbing: gettext("Followed the dealer's discards"),
  flower_kong_points: gettext("Flower and kong points"),
  false_win: gettext("False win"),
  // 浙东得
  pair: gettext("Pair"),
  concealed_triplet: gettext("Concealed pung"),
  exposed_pung: gettext("Exposed pung"),
  exposed_kong: gettext("Exposed kong"),
  concealed_kong: gettext("Concealed kong"),
  wait_closed: gettext("Closed wait"),
  wait_edge: gettext("Edge wait"),
  wait_single: gettext("Single wait"),
  self_draw_honour: gettext("Self-drawn own wind or dragon"),
  pure_one_suit: gettext("One suit"),
  mixed_one_suit: gettext("One suit with honours"),
  ping_hu: gettext("All runs"),
  four_winds: gettext("All four winds"),
  de_restored: gettext("De tile at face value"),
  big_dragons: gettext("Big three dragons"),
  small_dragons: gettext("Small three dragons"),
  win_bonus: gettext("Winning bonus"),
  total: gettext("Hand points"),
  pay_winner: gettext("Paid to the winner"),
  baopai: gettext("One player pays for all"),
  losers: gettext("Losers settle among themselves"),
};

const EN = LANG === "en";
// Punctuation as the page's language writes it.
const SEMI = pgettext("punctuation", "; ");
const COLON = pgettext("punctuation", ": ");
const COMMA = pgettext("punctuation", ", ");

/** Phrases by key: [Chinese, English]; {name} is replaced by vars[name]. */
const P = {
  base: gettext("base stake {n}"),
  each_pays: gettext("each other player pays {amount} ({base} × {m})"),
  discarder_pays: gettext("{payer} pays {amount} ({base} × {m})"),
  robbed_pays_all: gettext("{payer} alone pays {amount} ({base} × {m})"),
  class_soft: gettext("soft hand"),
  class_hard: gettext("hard hand"),
  class_double: gettext("double"),
  not_counted: gettext("not added: only the best one counts"),
  tier: gettext("tier {n}"),
  buy_base: gettext("bought base {n}"),
  counter_base: gettext("counter base {n}"),
  pair_base: gettext("{n}"),
  share: gettext("{payer} pays ({parts}) × {m} = {amount}"),
  held: gettext("wild tiles held: "),
  held_doubled: gettext(" (three wilds, natural shape: the winner's count double)"),
  kong_concealed: gettext("{seat} concealed kong"),
  kong_exposed: gettext("{seat} exposed kong"),
  kong_added: gettext("{seat} added kong"),
  from_each: gettext("{each} from each other player"),
  from_one: gettext("{from} gave the tile and pays {each}"),
  followed: gettext("{payer} was followed and pays each other player {each}"),
  dealer_stays: gettext("The dealer deals again"),
  dealer_passes: gettext("The deal passes on"),
  run_hand: gettext("dealer's hand {streak} in a row · tier {tier}"),
  dealer_won: gettext("the dealer won"),
  non_dealer_won: gettext("a non-dealer won"),
  streak_full: gettext("the dealer has dealt {n} hands in a row"),
  draw_with_kong: gettext("drawn hand with a kong"),
  draw_without_kong: gettext("drawn hand without a kong"),
  exposed: gettext("open"),
  concealed: gettext("concealed"),
  fan: gettext("{n} fan"),
  payer_fans: gettext("{payer} pays: winner {wf} fan"),
  total_fan: gettext("= {n} fan"),
  capped: gettext(" (capped at {n} fan)"),
  doubling: gettext("→ 2^{exp} × {base} = {amount}"),
  orphans_payment: gettext("{payer} pays twice the cap: 2 × 2^{cap} × {base} = {amount}"),
  orphans: gettext("twice the capped value"),
  kong_points_each: gettext(": each other player pays {each}"),
  nianzhuang: gettext("the dealer led"),
  nianzhuang_rest: gettext(", all three followed: the dealer pays each {each}"),
  winner_piao: gettext("{seat} bet {n} and won: each payer pays {each} more"),
  loser_piao: gettext("{seat} bet {n} and lost: pays the winner {each}"),
  multiplier_role: gettext("the hand's multiplier"),
  multiplier_factor: gettext("multiplies the hand's multiplier"),
  winner_points_in_base: gettext("added to the winner's base (base stake + these points)"),
  hand_in_base: gettext("each loser pays (base stake {base} + winner's flower/kong points {w}) × hand multiplier {k} × dealer-streak factor"),
  hand_separate: gettext("each loser pays base stake {base} × hand multiplier {k} × dealer-streak factor + winner's flower/kong points {w} × base stake"),
  hand_share: gettext("{loser} {amount} (streak factor {r})"),
  hand_share_by: gettext("{loser} {amount} (streak factor {r}, paid by {payer})"),
  pays_all: gettext("{payer} pays all three shares"),
  contract: gettext("{payer} discarded the winning tile in the final round and pays everything owed"),
  fenbing: gettext("{rounds} round(s) followed: the dealer pays each other player {each}"),
  liable_contract: gettext(" (paid by the discarder who pays for all)"),
  liable_false_win: gettext(" (paid by the false winner)"),
  pairwise: gettext("each pair settles the difference: "),
  false_win: gettext("{payer} guessed wrong:"),
  false_win_rest: gettext(", pays each other player as a self-drawn win: (base stake {base} + their flower/kong points) × multiplier {k} × dealer-streak factor, and the hand's followed-discard payments"),
  kongs_were: gettext(" (the concealed kongs: "),
  none: gettext("none"),
  close: gettext(")"),
  chouzhuang: gettext("nobody won: the dealer deals again"),
  no_settlement: gettext("no settlement; {seat} deals next"),
  plus_fan: gettext("+{n} fan"),
  laizi_outright: gettext("big three dragons: straight to the cap of {n}"),
  total_formula: gettext("{h} × 2^{fan} = {raw}"),
  total_plain: gettext("{h} = {raw}"),
  laizi: gettext("→ capped at {n}"),
  owed: gettext("each pays: "),
  baopai: gettext("{payer} pays for everyone: "),
  one_suit_exposed: gettext("three exposed sets of one suit (one suit)"),
  third_dragon: gettext("discarded the third dragon, still unseen (three dragons)"),
  unseen_dragon_far_from_ready: gettext("discarded an unseen dragon while two or more claims from ready"),
  transfer: gettext("{payer}→{payee} {amount}"),
};

function w(key, vars = {}) {
  const s = P[key];
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

const SEAT_WORDS = { E: gettext("East"), S: gettext("South"), W: gettext("West"), N: gettext("North") };

/** A seat in a breakdown line: 东 / East (never a bare letter: "E pays" reads as a code). */
export function seatWord(s) {
  if (!s) return "";
  return SEAT_WORDS[s] ?? windName(s);
}

const seat = seatWord;

/** Tiles as tiles (a run such as "234p" is three tiles). */
function tiles(text, size = 16) {
  return h("span", { class: "bd-tiles" }, parseTiles(text || "").map((c) => tileEl(c, { w: size, lang: LANG })));
}

/** A line's name: the item's words, after its seat's wind for a per-seat line. */
export function itemLabel(b) {
  const code = b.code || b.name;
  // In Chinese the rule set's own term is the best name (漳州 calls a discard win 平胡, 浙江 放冲)
  // when it is a plain term; a per-seat label (with its tiles in notation) is rebuilt instead.
  const own = !EN && !b.seat && /^[\u3400-\u9fff/]+$/.test(b.label || "") ? b.label : null;
  let name = own ?? ITEMS[code] ?? code.replace(/_/g, " ");
  if (code === "dealer") name = w(Number(b.params?.seats) === 0 ? "dealer_stays" : "dealer_passes");
  const p = b.params || {};
  if (code === "exhaustive_draw" && p.next_dealer) name = gettext("Drawn hand (no winner)");
  return b.seat ? `${seat(b.seat)} · ${name}` : name;
}

/** A line's value with its unit: ×2, 3番 / 3 fan, 10分 / 10 pts. */
export function itemValue(b) {
  const v = b.value;
  if (v === undefined || v === null) return "";
  switch (b.unit) {
    case "multiplier":
      return `×${v}`;
    case "fan":
      return w("fan", { n: v });
    case "exponent":
      return `${w("fan", { n: v })} → ×${2 ** Number(v)}`;
    case "points":
      return gettext("{v} pts").replace("{v}", String(v));
    case "count":
      return String(v);
    default:
      return ""; // a line whose words say it all (the deal moving, a drawn hand)
  }
}

/** Does the line say something?  A line worth nothing that moves nothing is hidden, unless
 *  it explains the hand (a drawn hand, the deal staying or moving, who pays for all). */
export const EXPLAINS = new Set(["exhaustive_draw", "dealer", "contract", "false_win"]);

export function visible(b) {
  if (EXPLAINS.has(b.code || b.name)) return true;
  const moves = Object.values(b.payments || {}).some((x) => Number(x) !== 0);
  return moves || Number(b.value || 0) !== 0;
}

function fanList(list) {
  return (list || []).map((f) => ` + ${ITEMS[f.code] ?? f.code} ${w("fan", { n: f.fan })}`).join("");
}

/** The line's explanation: words and tiles, from its params. */
export function itemDetail(b) {
  const p = b.params || {};
  const code = b.code || b.name;
  const base = p.base !== undefined ? w("base", { n: p.base }) : "";
  const out = [];
  const say = (...parts) => out.push(...parts);
  switch (code) {
    case "hand_value":
      if (p.rule) say(w(p.rule, { payer: seat(p.payers?.[0]), amount: p.amount, base, m: p.multiplier }));
      break;
    case "hand_score":
      say(
        (p.shares || [])
          .map((s) => w("share", { payer: seat(s.payer), parts: s.parts.map((x) => w(x.kind, { n: x.value })).join(" + "), m: p.multiplier, amount: s.amount }))
          .join(SEMI),
      );
      break;
    case "caishen_score":
      say(w("held"), Object.entries(p.held || {}).map(([s, n]) => `${seat(s)} ${n}`).join(" · "), p.doubled ? w("held_doubled") : "");
      break;
    case "kong_score":
      (p.kongs || []).forEach((k, i) => {
        if (i) say(SEMI);
        say(w(`kong_${k.kind}`, { seat: seat(k.seat) }), " ", tiles(k.tile), " ", k.kind === "exposed" ? w("from_one", { from: seat(k.from), each: k.each }) : w("from_each", { each: k.each }));
      });
      break;
    case "follow_wind":
      say((p.followed || []).map((f) => w("followed", { payer: seat(f.payer), each: f.each })).join(SEMI));
      break;
    case "dealer":
      say(w("run_hand", { streak: p.streak, tier: p.tier }), SEMI, w(p.reason, { n: p.hands_max }));
      break;
    case "payment":
      if (p.cap_factor) say(w("orphans_payment", { payer: seat(p.payer), cap: p.cap, base, amount: p.amount }));
      else
        say(
          w("payer_fans", { payer: seat(p.payer), wf: p.winner_fan }),
          fanList(p.loser_fans),
          " ",
          w("total_fan", { n: p.total_fan }),
          p.capped ? w("capped", { n: p.cap }) : "",
          " ",
          w("doubling", { exp: p.exponent, base, amount: p.amount }),
        );
      break;
    case "thirteen_orphans":
      say(w("orphans"));
      break;
    case "kong_points":
      say(w(`kong_${p.kind}`, { seat: seat(p.payee) }), " ", tiles(p.tile), w("kong_points_each", { each: p.each }));
      break;
    case "nianzhuang":
      say(w("nianzhuang"), " ", tiles(p.tile), w("nianzhuang_rest", { each: p.each }));
      break;
    case "piao":
      say(w(p.rule, { seat: seat(p.seat), n: p.points, each: p.each }));
      break;
    case "winner_points":
      say(w("winner_points_in_base"));
      break;
    case "hand": {
      const vars = { base: p.base, w: p.winner_points, k: p.hand_multiplier };
      say(w(p.winner_points_rule === "separate" ? "hand_separate" : "hand_in_base", vars), COLON);
      say(
        (p.shares || [])
          .map((s) => w(s.payer === s.loser ? "hand_share" : "hand_share_by", { loser: seat(s.loser), payer: seat(s.payer), amount: s.amount, r: s.streak_factor }))
          .join(COMMA),
      );
      if (p.pays_all) say(SEMI, w("pays_all", { payer: seat(p.pays_all) }));
      break;
    }
    case "contract":
      say(w("contract", { payer: seat(p.payer) }));
      break;
    case "fenbing":
      say(w("fenbing", { rounds: p.rounds, each: p.each }), p.liable ? w(`liable_${p.liable}`) : "");
      break;
    case "flower_kong_points":
      say(w("pairwise"), Object.entries(p.points_by_seat || {}).map(([s, n]) => `${seat(s)} ${n}`).join(" · "));
      break;
    case "false_win": {
      say(w("false_win", { payer: seat(p.payer) }), " ", tiles(p.guess), w("kongs_were"));
      const kongs = Object.entries(p.concealed_kongs || {});
      if (!kongs.length) say(w("none"));
      kongs.forEach(([s, t], i) => say(i ? " · " : "", `${seat(s)} `, tiles(t)));
      say(w("close"), w("false_win_rest", { base: p.base, k: p.hand_multiplier }));
      break;
    }
    case "exhaustive_draw":
      if (p.dealer_stays) say(w("chouzhuang"));
      else if (p.next_dealer) say(w("no_settlement", { seat: seat(p.next_dealer) }));
      break;
    case "total": {
      const hv = p.winner ? `(${p.hand_points} + ${p.win_bonus})` : String(p.hand_points);
      if (p.big_dragons) say(w("laizi_outright", { n: p.cap }));
      else say(w(p.fan ? "total_formula" : "total_plain", { h: hv, fan: p.fan, raw: p.raw }), p.laizi ? ` ${w("laizi", { n: p.cap })}` : "");
      break;
    }
    case "pay_winner":
      say(w("owed"), Object.entries(p.owed || {}).map(([s, a]) => `${seat(s)} ${a}`).join(" · "));
      break;
    case "baopai":
      say(w("baopai", { payer: seat(p.payer) }), (p.reasons || []).map((r) => w(r)).join(SEMI));
      break;
    case "losers":
      say((p.transfers || []).map((t) => w("transfer", { payer: seat(t.payer), payee: seat(t.payee), amount: t.amount })).join(" · "));
      break;
    default:
      // Patterns and set lines: their tiles, 明/暗, the class they count in, an added 番.
      if (p.tiles) say(tiles(p.tiles));
      if (p.exposed !== undefined) say(" ", w(p.exposed ? "exposed" : "concealed"));
      if (b.unit === "points" && p.fan) say(" ", w("plus_fan", { n: p.fan }));
      if (p.laizi && b.unit === "fan") say(w("laizi_outright", { n: p.laizi }));
      if (p.hand_class) say(w(`class_${p.hand_class}`), p.counted === false ? (SEMI) + w("not_counted") : "");
      if (p.role === "hand_multiplier") say(w("multiplier_role"));
      if (p.role === "hand_multiplier_factor") say(w("multiplier_factor"));
  }
  return out.filter((x) => x !== "");
}
