// Score breakdown lines in the reader's language, rendered from each line's structured data
// (docs/scoring.md "Breakdown line data"): `code` names the item, `unit` says what `value`
// counts, `params` holds the named numbers, tiles (tile codes) and seats (seat winds).  The
// engine's own `label` / `detail` text (Chinese rule terms, English notes) is never shown.
//
// The words live here rather than in i18n.js: they are one block, keyed by item code, and the
// engine's tests check that every code a rule set produces has an entry in ITEMS.

import { h } from "./dom.js";
import { LANG, windName } from "./i18n.js";
import { parseTiles, tileEl } from "./tiles.js";

/** Every breakdown item code: its name in Chinese and English. */
export const ITEMS = {
  // hand kinds and patterns
  discard: ["放冲", "Win on a discard"],
  robbing_kong: ["抢杠胡", "Robbing a kong"],
  self_draw: ["自摸", "Self-drawn win"],
  kong_bloom: ["杠上开花", "Win on a kong's replacement tile"],
  four_wilds: ["四财神", "Four wild tiles"],
  heaven: ["天和", "Heavenly hand"],
  earth: ["地和", "Earthly hand"],
  hand_value: ["和牌", "Winning hand"],
  three_caishen_hard: ["三财神硬胡", "Three wilds, natural shape"],
  three_caishen_soft: ["三财神软胡", "Three wilds, any shape"],
  hard_eight_pairs: ["硬八对", "Eight natural pairs"],
  soft_eight_pairs: ["软八对", "Eight pairs with wilds"],
  single_wait: ["单吊", "Single wait"],
  all_pungs: ["碰碰胡", "All pungs"],
  flush: ["清一色", "One suit"],
  caishen_pair: ["财神牛", "Waiting on a wild"],
  plain: ["平胡", "Plain win"],
  soft: ["软牌", "Soft hand"],
  self_draw_double: ["自摸翻倍", "Self-draw doubles"],
  hand_score: ["胡牌分", "Hand score"],
  caishen_score: ["财神分", "Wild-tile score"],
  kong_score: ["杠分", "Kong score"],
  follow_wind: ["跟风", "Followed discards"],
  dealer: ["庄家", "Dealer"],
  exhaustive_draw: ["流局", "Drawn hand"],
  // 东北
  ready: ["听牌", "Ready declared"],
  seven_pairs: ["七小对", "Seven pairs"],
  closed: ["立门", "Closed hand"],
  one_left: ["手把一", "One tile left in hand"],
  half_flush: ["混一色", "One suit with honours"],
  full_flush: ["清一色", "One suit"],
  double_sequence: ["一般高", "Two identical runs"],
  triple_sequence: ["两般高", "Three identical runs"],
  four_alike: ["四归一", "Four of a kind (not a kong)"],
  kong_deal_in: ["杠后炮", "Discard after a kong"],
  deal_in: ["点炮", "Dealt in"],
  thirteen_orphans: ["十三幺", "Thirteen orphans"],
  payment: ["付分", "Payment"],
  kong_points: ["杠分", "Kong points"],
  nianzhuang: ["撵庄", "All followed the dealer's lead"],
  piao: ["飘", "Piao bet"],
  // 漳州
  rob_gold: ["抢金", "Robbing the gold"],
  you_single: ["单游", "Single gold tour"],
  you_double: ["双游", "Double gold tour"],
  you_triple: ["三游", "Triple gold tour"],
  three_golds: ["三金倒", "Three golds"],
  winner_points: ["赢家花分/杠分", "Winner's flower and kong points"],
  hand: ["和牌", "Winning hand"],
  contract: ["承包", "Discarder pays for all"],
  fenbing: ["分饼", "Followed the dealer's discards"],
  flower_kong_points: ["花分/杠分", "Flower and kong points"],
  false_win: ["诈胡", "False win"],
  // 浙东得
  pair: ["对子", "Pair"],
  concealed_triplet: ["暗刻", "Concealed pung"],
  exposed_pung: ["刻子", "Exposed pung"],
  exposed_kong: ["明杠", "Exposed kong"],
  concealed_kong: ["暗杠", "Concealed kong"],
  wait_closed: ["嵌档", "Closed wait"],
  wait_edge: ["靠柄", "Edge wait"],
  wait_single: ["单吊", "Single wait"],
  self_draw_honour: ["自摸门风/箭牌", "Self-drawn own wind or dragon"],
  pure_one_suit: ["清一色", "One suit"],
  mixed_one_suit: ["混一色", "One suit with honours"],
  ping_hu: ["平和", "All runs"],
  four_winds: ["四风会齐", "All four winds"],
  de_restored: ["得还原", "De tile at face value"],
  big_dragons: ["大三元", "Big three dragons"],
  small_dragons: ["小三元", "Small three dragons"],
  win_bonus: ["和牌奖励", "Winning bonus"],
  total: ["牌点", "Hand points"],
  pay_winner: ["付和家", "Paid to the winner"],
  baopai: ["包牌", "One player pays for all"],
  losers: ["闲家互结", "Losers settle among themselves"],
};

const EN = LANG === "en";

/** Phrases by key: [Chinese, English]; {name} is replaced by vars[name]. */
const P = {
  base: ["底分 {n}", "base stake {n}"],
  each_pays: ["每家付 {amount}（{base} × {m}）", "each other player pays {amount} ({base} × {m})"],
  discarder_pays: ["{payer} 付 {amount}（{base} × {m}）", "{payer} pays {amount} ({base} × {m})"],
  robbed_pays_all: ["{payer} 一家承包 {amount}（{base} × {m}）", "{payer} alone pays {amount} ({base} × {m})"],
  class_soft: ["软牌", "soft hand"],
  class_hard: ["硬牌", "hard hand"],
  class_double: ["双翻", "double"],
  not_counted: ["不叠加，不计", "not added: only the best one counts"],
  tier: ["底{n}", "tier {n}"],
  buy_base: ["买底{n}", "bought base {n}"],
  counter_base: ["顶底{n}", "counter base {n}"],
  pair_base: ["{n}", "{n}"],
  share: ["{payer} 付 ({parts}) × {m} = {amount}", "{payer} pays ({parts}) × {m} = {amount}"],
  held: ["所持财神：", "wild tiles held: "],
  held_doubled: ["（三财神硬胡：赢家财神加倍）", " (three wilds, natural shape: the winner's count double)"],
  kong_concealed: ["{seat} 暗杠", "{seat} concealed kong"],
  kong_exposed: ["{seat} 明杠", "{seat} exposed kong"],
  kong_added: ["{seat} 补杠", "{seat} added kong"],
  from_each: ["每家付 {each}", "{each} from each other player"],
  from_one: ["{from} 点杠，付 {each}", "{from} gave the tile and pays {each}"],
  followed: ["{payer} 被跟风，付每家 {each}", "{payer} was followed and pays each other player {each}"],
  dealer_stays: ["连庄", "The dealer deals again"],
  dealer_passes: ["下庄", "The deal passes on"],
  run_hand: ["连庄第 {streak} 把 · 底分 {tier}", "dealer's hand {streak} in a row · tier {tier}"],
  dealer_won: ["庄家胡牌", "the dealer won"],
  non_dealer_won: ["闲家胡牌", "a non-dealer won"],
  streak_full: ["连庄已满 {n} 把", "the dealer has dealt {n} hands in a row"],
  draw_with_kong: ["流局有杠", "drawn hand with a kong"],
  draw_without_kong: ["流局无杠", "drawn hand without a kong"],
  exposed: ["明", "open"],
  concealed: ["暗", "concealed"],
  fan: ["{n}番", "{n} fan"],
  payer_fans: ["{payer} 付：赢家 {wf}番", "{payer} pays: winner {wf} fan"],
  total_fan: ["= {n}番", "= {n} fan"],
  capped: ["（封顶 {n}番）", " (capped at {n} fan)"],
  doubling: ["→ 2^{exp} × {base} = {amount}", "→ 2^{exp} × {base} = {amount}"],
  orphans_payment: ["{payer} 付：封顶两倍 2 × 2^{cap} × {base} = {amount}", "{payer} pays twice the cap: 2 × 2^{cap} × {base} = {amount}"],
  orphans: ["封顶番数的两倍", "twice the capped value"],
  kong_points_each: ["：每家付 {each}", ": each other player pays {each}"],
  nianzhuang: ["庄家先打", "the dealer led"],
  nianzhuang_rest: ["，三家跟打：庄家付每家 {each}", ", all three followed: the dealer pays each {each}"],
  winner_piao: ["{seat} 飘 {n} 并胡牌：每个付分者多付 {each}", "{seat} bet {n} and won: each payer pays {each} more"],
  loser_piao: ["{seat} 飘 {n} 未胡：付赢家 {each}", "{seat} bet {n} and lost: pays the winner {each}"],
  multiplier_role: ["本局倍数", "the hand's multiplier"],
  multiplier_factor: ["乘本局倍数", "multiplies the hand's multiplier"],
  winner_points_in_base: ["计入赢家的底分（底分 + 花分/杠分）", "added to the winner's base (base stake + these points)"],
  hand_in_base: [
    "每家输家付 (底分 {base} + 赢家花分/杠分 {w}) × 本局倍数 {k} × 连庄倍数",
    "each loser pays (base stake {base} + winner's flower/kong points {w}) × hand multiplier {k} × dealer-streak factor",
  ],
  hand_separate: [
    "每家输家付 底分 {base} × 本局倍数 {k} × 连庄倍数 + 赢家花分/杠分 {w} × 底分",
    "each loser pays base stake {base} × hand multiplier {k} × dealer-streak factor + winner's flower/kong points {w} × base stake",
  ],
  hand_share: ["{loser} {amount}（连庄倍数 {r}）", "{loser} {amount} (streak factor {r})"],
  hand_share_by: ["{loser} {amount}（连庄倍数 {r}，由 {payer} 付）", "{loser} {amount} (streak factor {r}, paid by {payer})"],
  pays_all: ["{payer} 一家付三家", "{payer} pays all three shares"],
  contract: ["{payer} 在最后一轮放炮，承包全部应付分", "{payer} discarded the winning tile in the final round and pays everything owed"],
  fenbing: ["跟打 {rounds} 轮：庄家付每家 {each}", "{rounds} round(s) followed: the dealer pays each other player {each}"],
  liable_contract: ["（由承包者代付）", " (paid by the discarder who pays for all)"],
  liable_false_win: ["（由诈胡者代付）", " (paid by the false winner)"],
  pairwise: ["两两结算差额：", "each pair settles the difference: "],
  false_win: ["{payer} 猜错", "{payer} guessed wrong:"],
  false_win_rest: [
    "，按自摸赔每家 (底分 {base} + 花分/杠分) × 倍数 {k} × 连庄倍数，并付本局分饼",
    ", pays each other player as a self-drawn win: (base stake {base} + their flower/kong points) × multiplier {k} × dealer-streak factor, and the hand's followed-discard payments",
  ],
  kongs_were: ["（暗杠：", " (the concealed kongs: "],
  none: ["无", "none"],
  close: ["）", ")"],
  chouzhuang: ["无人胡牌：庄家连庄（臭庄）", "nobody won: the dealer deals again"],
  no_settlement: ["不结算，{seat}家坐庄", "no settlement; {seat} deals next"],
  plus_fan: ["+{n}番", "+{n} fan"],
  laizi_outright: ["大三元：直接腊子 {n}", "big three dragons: straight to the cap of {n}"],
  total_formula: ["{h} × 2^{fan} = {raw}", "{h} × 2^{fan} = {raw}"],
  total_plain: ["{h} = {raw}", "{h} = {raw}"],
  laizi: ["→ 腊子 {n}", "→ capped at {n}"],
  owed: ["各家付：", "each pays: "],
  baopai: ["{payer} 包牌，付全部：", "{payer} pays for everyone: "],
  one_suit_exposed: ["亮出三组同一花色（清一色）", "three exposed sets of one suit (one suit)"],
  third_dragon: ["打出尚未见过的第三种箭牌（大三元/小三元）", "discarded the third dragon, still unseen (three dragons)"],
  unseen_dragon_far_from_ready: ["离听牌还差两组以上时打出生张箭牌", "discarded an unseen dragon while two or more claims from ready"],
  transfer: ["{payer}→{payee} {amount}", "{payer}→{payee} {amount}"],
};

function w(key, vars = {}) {
  const s = P[key][EN ? 1 : 0];
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

const SEAT_WORDS = { E: "East", S: "South", W: "West", N: "North" };

/** A seat in a breakdown line: 东 / East (never a bare letter: "E pays" reads as a code). */
export function seatWord(s) {
  if (!s) return "";
  return EN ? (SEAT_WORDS[s] ?? s) : windName(s);
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
  let name = own ?? ITEMS[code]?.[EN ? 1 : 0] ?? code.replace(/_/g, " ");
  if (code === "dealer") name = w(Number(b.params?.seats) === 0 ? "dealer_stays" : "dealer_passes");
  const p = b.params || {};
  if (code === "exhaustive_draw" && p.next_dealer) name = EN ? "Drawn hand (no winner)" : "黄牌";
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
      return EN ? `${v} pts` : `${v}分`;
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
  return (list || []).map((f) => ` + ${ITEMS[f.code]?.[EN ? 1 : 0] ?? f.code} ${w("fan", { n: f.fan })}`).join("");
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
          .join(EN ? "; " : "；"),
      );
      break;
    case "caishen_score":
      say(w("held"), Object.entries(p.held || {}).map(([s, n]) => `${seat(s)} ${n}`).join(" · "), p.doubled ? w("held_doubled") : "");
      break;
    case "kong_score":
      (p.kongs || []).forEach((k, i) => {
        if (i) say(EN ? "; " : "；");
        say(w(`kong_${k.kind}`, { seat: seat(k.seat) }), " ", tiles(k.tile), " ", k.kind === "exposed" ? w("from_one", { from: seat(k.from), each: k.each }) : w("from_each", { each: k.each }));
      });
      break;
    case "follow_wind":
      say((p.followed || []).map((f) => w("followed", { payer: seat(f.payer), each: f.each })).join(EN ? "; " : "；"));
      break;
    case "dealer":
      say(w("run_hand", { streak: p.streak, tier: p.tier }), EN ? "; " : "；", w(p.reason, { n: p.hands_max }));
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
      say(w(p.winner_points_rule === "separate" ? "hand_separate" : "hand_in_base", vars), EN ? ": " : "：");
      say(
        (p.shares || [])
          .map((s) => w(s.payer === s.loser ? "hand_share" : "hand_share_by", { loser: seat(s.loser), payer: seat(s.payer), amount: s.amount, r: s.streak_factor }))
          .join(EN ? ", " : "，"),
      );
      if (p.pays_all) say(EN ? "; " : "；", w("pays_all", { payer: seat(p.pays_all) }));
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
      say(w("baopai", { payer: seat(p.payer) }), (p.reasons || []).map((r) => w(r)).join(EN ? "; " : "；"));
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
      if (p.hand_class) say(w(`class_${p.hand_class}`), p.counted === false ? (EN ? "; " : "；") + w("not_counted") : "");
      if (p.role === "hand_multiplier") say(w("multiplier_role"));
      if (p.role === "hand_multiplier_factor") say(w("multiplier_factor"));
  }
  return out.filter((x) => x !== "");
}
