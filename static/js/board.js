// The felt: four seats (strip of tiles + melds + flowers, discard pond, name plate), the centre
// panel, the table-info panel, the player's claim buttons.  Rendered from one complete frame
// (docs/protocol.md).
//
// Geometry: the stage is a fixed 1100×760 design (table.css); every other seat's strip and pond
// is the bottom one's layout rotated (right: -90°, top: 180°, left: 90°), as on a real table.

import { clear, h, signed } from "./dom.js";
import { LANG, t, verbLabel, windName } from "./i18n.js";
import { plateDelta } from "./scores.js";
import { parseTiles, sortTiles, tileEl } from "./tiles.js";
import {
  answerLabel,
  betBadges,
  centreMarks,
  drawableLeft,
  flagBadges,
  infoRows,
  questionLabel,
  standIns,
  upcomingWind,
  wildWords,
} from "./variant.js";

export const SIDES = ["bottom", "right", "top", "left"];
const SEATS = "ESWN";

const SIZE = { hand: 50, myMeld: 38, pond: 32, pondDense: 27, other: 28, otherLong: 25 };
const OWN_WIDTH = 1070; // the bottom strip's room for hand, melds and flowers (stage px)
const SIDE_WIDTH = 600; // a rotated strip's room
const VERB_ORDER = ["win", "rob_gold", "rob_concealed_kong", "kong", "pung", "chow", "ready"];
const PICKER_MIN = 5; // a verb offered on this many tiles gets one button opening a tile picker

/** Where a chair sits on screen: 0 bottom (you), 1 right (下家), 2 top, 3 left (上家). */
export function sideOf(chair, you) {
  return (chair - (you ?? 0) + 4) % 4;
}

export function playerByWind(view, wind) {
  return view.players.find((p) => p.seat === wind);
}

export function wildsOf(view) {
  return parseTiles(view?.table?.wilds || "");
}

/** The chair of a seat wind in this hand. */
export function chairOfWind(hand, wind) {
  for (const [chair, w] of Object.entries(hand.winds)) if (w === wind) return Number(chair);
  return null;
}

export function seatName(seat) {
  if (!seat) return "";
  return seat.name || t("empty_chair");
}

/** How tiles of this hand are drawn: wild glow and mark (财/得/金), 白板 stand-in tags. */
export function tileStyle(view) {
  const wilds = wildsOf(view);
  return { wilds, wildSet: new Set(wilds), mark: wildWords(view?.table).mark, standIns: standIns(view?.table) };
}

function tile(code, opts) {
  return tileEl(code, { lang: LANG, ...opts });
}

/** A face tile of this hand, with its wild mark or stand-in tag. */
export function styledTile(code, style, opts = {}) {
  const wild = Boolean(code) && style.wildSet.has(code);
  const plays = code && !wild ? style.standIns[code] || null : null;
  return tileEl(code, { lang: LANG, wild, mark: style.mark, plays, ...opts });
}

/** A meld with the claimed tile lying sideways on the side of the player it came from. */
export function meldEl(meld, owner, w, own, style) {
  const kind = meld.kind || "";
  const concealedKong = kind === "kong_concealed";
  let tiles = meld.tiles ? parseTiles(meld.tiles) : [null, null, null, null];
  if (concealedKong && own && meld.tiles) tiles = [null, tiles[1], tiles[2], null];
  let sideways = -1;
  if (meld.claimed && meld.from && meld.tiles) {
    const i = tiles.lastIndexOf(meld.claimed);
    if (i >= 0) tiles.splice(i, 1);
    const rel = (SEATS.indexOf(meld.from) - SEATS.indexOf(owner) + 4) % 4; // 3 上家, 2 opposite, 1 下家
    sideways = rel === 3 ? 0 : rel === 2 ? 1 : tiles.length;
    tiles.splice(sideways, 0, meld.claimed);
  }
  return h(
    "span",
    { class: `meld meld-${kind}`, dataset: { kind } },
    tiles.map((code, i) => (style ? styledTile(code, style, { w, sideways: i === sideways }) : tile(code, { w, sideways: i === sideways }))),
  );
}

/** Flowers (漳州 补花), small, after the melds. */
function flowersEl(player, w) {
  const flowers = parseTiles(player.flowers || "");
  if (!flowers.length) return null;
  return h("span", { class: "flowers", dataset: { n: flowers.length }, title: `${flowers.length}` }, flowers.map((c) => tile(c, { w })));
}

function meldTileCount(player) {
  return player.melds.reduce((n, m) => n + (m.tiles ? parseTiles(m.tiles).length : 4), 0);
}

export class Board {
  constructor(stage, { onDiscard, onAction }) {
    this.stage = stage;
    this.onDiscard = onDiscard;
    this.onAction = onAction;
    this.strips = SIDES.map((s) => h("div", { class: `strip strip-${s}`, dataset: { side: s } }));
    this.ponds = SIDES.map((s) => h("div", { class: `pond pond-${s}`, dataset: { side: s } }));
    this.plates = SIDES.map((s) => h("div", { class: `plate plate-${s}`, dataset: { side: s } }));
    this.center = h("div", { class: "center", id: "mj-center" });
    this.info = h("div", { class: "table-info", id: "mj-table-info", hidden: true });
    this.prompt = h("div", { class: "prompt", id: "mj-prompt", "aria-live": "polite" });
    this.actions = h("div", { class: "actions", id: "mj-actions" });
    this.picker = h("div", { class: "picker", id: "mj-picker", hidden: true });
    this.clocks = [];
    // What the player is picking (reset whenever the decision changes): "ready" makes the hand's
    // tiles that may go with 报听 clickable; a verb name opens the tile picker of that verb.
    this.mode = { key: null, pick: null };
    this.last = null;
    stage.append(...this.ponds, ...this.strips, ...this.plates, this.center, this.info, this.prompt, this.actions, this.picker);
  }

  /**
   * ctx: {pending: a command is on its way, lastDiscard: wind of the latest discarder,
   *       deadlineAt: ms left of the current decision when the frame came (null: none)}
   */
  render(frame, ctx) {
    this.last = { frame, ctx };
    const hand = frame.hand;
    const pre = frame.table.pre_hand || null;
    // A pre-hand question (买底/顶底, 飘) is open: the last hand is over, the next not dealt.
    const preMode = Boolean(pre) && (!hand || hand.status !== "playing");
    const view = preMode ? null : hand?.view || null;
    const decision = hand ? `${hand.id}:${hand.seq}` : null;
    if (this.mode.key !== decision) this.mode = { key: decision, pick: null };
    this.clocks = [];
    this.stage.classList.toggle("in-hand", Boolean(view));
    this.stage.classList.toggle("pre-hand", preMode);
    const style = view ? tileStyle(view) : null;
    for (let chair = 0; chair < 4; chair++) {
      const side = sideOf(chair, frame.you);
      const seat = frame.seats[chair];
      const wind = preMode ? upcomingWind(frame.table, chair) : hand ? hand.winds[String(chair)] : null;
      const player = view ? playerByWind(view, wind) : null;
      this.renderPlate(this.plates[side], frame, chair, seat, wind, player, preMode ? pre : null);
      if (player) {
        this.renderStrip(this.strips[side], frame, player, side, ctx, style);
        this.renderPond(this.ponds[side], player, ctx.lastDiscard === wind, style);
      } else {
        clear(this.strips[side]);
        clear(this.ponds[side]);
      }
    }
    if (preMode) this.renderPreCenter(frame, pre, ctx);
    else this.renderCenter(frame, ctx, style);
    this.renderInfo(view);
    this.renderActions(preMode ? { ...frame, hand: null } : frame, ctx, style);
  }

  rerender() {
    if (this.last) this.render(this.last.frame, this.last.ctx);
  }

  // ------------------------------------------------------------------ plates
  renderPlate(el, frame, chair, seat, wind, player, pre) {
    const hand = frame.hand;
    const view = pre ? null : hand?.view;
    if (!hand && !pre) {
      clear(el);
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const dealer = pre ? frame.table.dealer_position === chair : hand.dealer_position === chair;
    const active = view && hand.status === "playing" && view.phase === "play" && view.turn === wind;
    const badges = [];
    if (dealer) badges.push(h("span", { class: "badge dealer", title: t("dealer") }, t("dealer")));
    if (seat?.is_bot) badges.push(h("span", { class: "badge bot" }, t("bot")));
    if (seat?.auto_play && !seat?.is_bot) badges.push(h("span", { class: "badge auto" }, t("auto_play")));
    if (seat && !seat.connected && !seat.is_bot) badges.push(h("span", { class: "badge offline" }, t("offline")));
    if (seat?.left) badges.push(h("span", { class: "badge left" }, t("left_match")));
    if (pre) {
      if (pre.asked.includes(chair)) {
        const answer = pre.answers?.[String(chair)];
        badges.push(
          answer === undefined
            ? h("span", { class: "badge answer pending", dataset: { answer: "" } }, `${questionLabel(pre)} ${t("pre_hand_pending")}`)
            : h("span", { class: "badge answer", dataset: { answer: JSON.stringify(answer) } }, answerLabel(pre, answer)),
        );
      }
    } else {
      badges.push(...betBadges(view?.table, wind), ...flagBadges(player?.flags));
    }
    const delta = pre ? null : plateDelta(frame, chair); // units, or points on a score-only table
    const you = frame.you === chair;
    const score = frame.table.scores?.[String(chair)];
    const showScore = score !== undefined && frame.table.hands_total > 1 && frame.table.hands_played > 0;
    clear(
      el,
      h(
        "div",
        { class: `plate-inner${active ? " active" : ""}${you ? " you" : ""}`, dataset: { chair, wind: wind || "" } },
        h("div", { class: "plate-wind" }, wind ? windName(wind) : ""),
        h(
          "div",
          { class: "plate-body" },
          h("div", { class: "plate-name", title: seatName(seat) }, seatName(seat)),
          h("div", { class: "plate-badges" }, you ? h("span", { class: "badge you" }, t("you")) : null, badges),
          showScore
            ? h("div", { class: "plate-score", title: t("match_score") }, `${t("match_score")} `, h("b", { class: score > 0 ? "plus" : score < 0 ? "minus" : "zero" }, signed(score)))
            : null,
        ),
        delta !== null && delta !== undefined
          ? h("div", { class: `plate-delta ${delta > 0 ? "plus" : delta < 0 ? "minus" : "zero"}` }, signed(delta))
          : null,
      ),
    );
  }

  // ------------------------------------------------------------------ strips
  renderStrip(el, frame, player, side, ctx, style) {
    const view = frame.hand.view;
    const own = player.hand !== null && player.hand !== undefined;
    const revealed = view.revealed ? view.revealed[player.seat] : null;
    const flowers = parseTiles(player.flowers || "").length;
    const children = [];
    let meldW;
    let flowerW;
    if (own && side === 0) {
      // The bottom strip: shrink everything together when a long hand, melds and flowers
      // would not fit (16/17-tile rule sets, up to eight flowers).
      const n = parseTiles(player.hand).length;
      const need = n * (SIZE.hand + 2) + 16 + meldTileCount(player) * (SIZE.myMeld + 2) + player.melds.length * 8 + flowers * 32 + 28;
      const k = Math.min(1, OWN_WIDTH / need);
      meldW = Math.floor(SIZE.myMeld * k);
      flowerW = Math.floor(30 * k);
      children.push(this.ownHand(view, player, ctx, style, Math.floor(SIZE.hand * k)));
    } else {
      const count = revealed ? parseTiles(revealed).length : player.hand_count;
      const base = side === 0 ? SIZE.myMeld : count + meldTileCount(player) > 15 || flowers > 2 ? SIZE.otherLong : SIZE.other;
      const need = (count + meldTileCount(player) + flowers * 0.8) * (base + 2) + player.melds.length * 8 + 28;
      const w = side === 0 ? base : Math.floor(base * Math.min(1, SIDE_WIDTH / need));
      meldW = w;
      flowerW = Math.round(w * 0.8);
      if (revealed !== null && revealed !== undefined) {
        children.push(h("span", { class: "concealed revealed" }, sortTiles(parseTiles(revealed), style.wilds).map((c) => styledTile(c, style, { w }))));
      } else {
        const backs = [];
        for (let i = 0; i < player.hand_count; i++) backs.push(tile(null, { w }));
        children.push(h("span", { class: "concealed backs" }, backs));
      }
    }
    if (player.melds.length) {
      children.push(h("span", { class: "melds" }, player.melds.map((m) => meldEl(m, player.seat, meldW, own, style))));
    }
    children.push(flowersEl(player, flowerW));
    clear(el, ...children);
  }

  ownHand(view, player, ctx, style, w) {
    const tiles = parseTiles(player.hand);
    const drawn = player.drawn;
    if (drawn) {
      const i = tiles.lastIndexOf(drawn);
      if (i >= 0) tiles.splice(i, 1);
    }
    const legal = view.legal_actions || [];
    const picking = this.mode.pick === "ready";
    const verb = picking ? "ready" : "discard";
    const allowed = new Set(legal.filter((a) => a.do === verb && a.tile).map((a) => a.tile));
    const active = allowed.size > 0 && !ctx.pending;
    const choose = (code) => (picking ? this.onAction({ do: "ready", tile: code }) : this.onDiscard(code));
    const make = (code, extra) => {
      const playable = active && allowed.has(code);
      const el = styledTile(code, style, {
        w,
        className: `${extra}${playable ? " playable" : active ? " dimmed" : ""}${playable && picking ? " ready-pick" : ""}`,
      });
      if (playable) {
        el.tabIndex = 0;
        el.setAttribute("role", "button");
        el.addEventListener("click", () => choose(code));
        el.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") choose(code);
        });
      }
      return el;
    };
    return h(
      "span",
      { class: `concealed own${picking ? " picking" : ""}`, id: "mj-hand" },
      sortTiles(tiles, style.wilds).map((c) => make(c, "in-hand")),
      drawn ? make(drawn, "drawn") : null,
    );
  }

  // ------------------------------------------------------------------ ponds
  renderPond(el, player, isLast, style) {
    const discards = parseTiles(player.discards);
    const claimed = new Set(player.claimed_discards || []);
    const last = discards.length - 1;
    // Past four rows of six, seven smaller tiles a row keep a long river inside its square.
    const w = discards.length > 24 ? SIZE.pondDense : SIZE.pond;
    clear(
      el,
      discards.map((c, i) =>
        styledTile(c, style, {
          w,
          className: `${claimed.has(i) ? "claimed" : ""}${isLast && i === last && !claimed.has(i) ? " last" : ""}`,
        }),
      ),
    );
  }

  // ------------------------------------------------------------------ centre
  compass(frame, windOf, activeWind) {
    const out = [];
    for (let chair = 0; chair < 4; chair++) {
      const side = SIDES[sideOf(chair, frame.you)];
      const wind = windOf(chair);
      out.push(
        h("div", { class: `compass compass-${side}${activeWind === wind ? " active" : ""}${wind === "E" ? " east" : ""}` }, windName(wind)),
      );
    }
    return out;
  }

  renderCenter(frame, ctx, style) {
    const hand = frame.hand;
    const view = hand?.view;
    if (!view) {
      clear(this.center);
      this.center.hidden = true;
      return;
    }
    this.center.hidden = false;
    const active = hand.status === "playing" && view.phase === "play" ? view.turn : null;
    const marks = centreMarks(view).map((m) =>
      h(
        "div",
        { class: `mark mark-${m.key}`, dataset: { key: m.key } },
        h("div", { class: "mark-label" }, m.label),
        h("div", { class: "mark-tiles" }, m.tiles.map((c) => tile(c, { w: m.tiles.length > 2 ? 22 : 28, wild: Boolean(m.wild), mark: m.mark }))),
      ),
    );
    const clock = h("div", { class: "clock", id: "mj-clock" });
    if (ctx.deadlineAt !== null && hand.status === "playing") this.clocks.push(clock);
    let who = "";
    if (hand.status === "playing") {
      if (view.phase === "play") {
        const chair = chairOfWind(hand, view.turn);
        who = chair === frame.you ? t("your_turn") : t("waiting_for", { name: seatName(frame.seats[chair]) });
      } else {
        who = t("claim_window");
      }
    } else {
      who = t("hand_end");
    }
    const left = drawableLeft(view);
    clear(
      this.center,
      this.compass(frame, (chair) => hand.winds[String(chair)], active),
      h(
        "div",
        { class: "center-core" },
        h(
          "div",
          { class: "wall-left", id: "mj-wall-left", dataset: { n: left, wall: view.wall_left }, title: t("wall_total", { n: view.wall_left }) },
          t("tiles_left", { n: left }),
        ),
        h("div", { class: "marks" }, marks),
        clock,
        h("div", { class: "who" }, who),
      ),
    );
  }

  /** The centre while a pre-hand question is open: the next hand's winds, the question, its clock. */
  renderPreCenter(frame, pre, ctx) {
    this.center.hidden = false;
    const waiting = pre.asked.filter((c) => pre.answers?.[String(c)] === undefined).length;
    const clock = h("div", { class: "clock", id: "mj-clock" });
    if (pre.deadline_in_ms !== null && pre.deadline_in_ms !== undefined) this.clocks.push(clock);
    clear(
      this.center,
      this.compass(frame, (chair) => upcomingWind(frame.table, chair), null),
      h(
        "div",
        { class: "center-core pre" },
        h("div", { class: "pre-title" }, t("pre_hand")),
        h("div", { class: "pre-label", id: "mj-pre-label" }, questionLabel(pre)),
        clock,
        h("div", { class: "who" }, t("pre_hand_waiting_n", { n: waiting })),
      ),
    );
  }

  /** Every entry of `view.table` the centre does not show, labelled (table-info panel). */
  renderInfo(view) {
    const rows = view ? infoRows(view) : [];
    this.info.hidden = rows.length === 0;
    clear(
      this.info,
      rows.length ? h("div", { class: "info-title" }, t("table_info")) : null,
      rows.map((r) =>
        h("div", { class: "info-row", dataset: { key: r.key } }, h("span", { class: "info-label" }, r.label), h("span", { class: "info-value" }, r.value)),
      ),
    );
  }

  // ------------------------------------------------------------------ actions
  renderActions(frame, ctx, style) {
    const view = frame.hand?.view;
    let legal = (view && frame.hand.status === "playing" && view.legal_actions) || [];
    // Claim protection opens every discard's window to every seat; a window where all you may
    // do is pass passes by itself after a short pause, so it asks nothing of you.  A rule set's
    // prompt (漳州 抢金, 抢暗杠) outside a window asks its options plus pass: shown.
    const claims = legal.filter((a) => a.do !== "discard" && a.do !== "pass");
    const askedToClaim = Boolean(view?.window) && claims.length > 0;
    if (view?.window && !askedToClaim) legal = legal.filter((a) => a.do !== "pass");
    const ownTurn = Boolean(view) && view.phase === "play" && view.turn === view.seat;
    const inPrompt = !view?.window && !legal.some((a) => a.do === "discard") && legal.some((a) => a.do !== "pass");
    const groups = new Map();
    for (const a of legal) {
      if (a.do === "discard") continue;
      if (!groups.has(a.do)) groups.set(a.do, []);
      groups.get(a.do).push(a);
    }
    if (this.mode.pick && !groups.has(this.mode.pick)) this.mode.pick = null;
    const verbs = [...groups.keys()].sort((a, b) => rank(a) - rank(b));
    const buttons = [];
    const button = (a, label, onclick, extra = {}) => {
      const minis = [];
      if (extra.noTiles) {
        // a picker opener: the verb only
      } else if (a.tiles) minis.push(...parseTiles(a.tiles).map((c) => styledTile(c, style, { w: 22 })));
      else if (a.tile && a.do !== "pass") minis.push(styledTile(a.tile, style, { w: 22 }));
      return h(
        "button",
        {
          type: "button",
          class: `act act-${a.do}${extra.className ? ` ${extra.className}` : ""}`,
          disabled: ctx.pending,
          title: extra.title || null,
          dataset: { do: a.do, tile: extra.noTiles ? "" : a.tile || "", tiles: extra.noTiles ? "" : a.tiles || "", ...(extra.data || {}) },
          onclick,
        },
        h("span", { class: "act-label" }, label),
        minis.length ? h("span", { class: "act-tiles" }, minis) : null,
      );
    };
    const strip = (a) => {
      const action = { ...a };
      delete action.seat;
      return action;
    };
    for (const verb of verbs) {
      const acts = groups.get(verb);
      const label = labelOf(verb, ownTurn, inPrompt, view);
      if (this.mode.pick === verb) {
        buttons.push(
          h(
            "button",
            { type: "button", class: "act act-cancel", dataset: { do: "cancel", pick: verb }, onclick: () => this.setPick(null) },
            h("span", { class: "act-label" }, t("cancel_pick")),
          ),
        );
        continue;
      }
      if (verb === "ready" && acts.length > 1) {
        // 报听 with a choice of discards: pick the tile in the hand.
        buttons.push(button(acts[0], label, () => this.setPick("ready"), { noTiles: true, title: t("ready_title"), data: { pick: "ready" } }));
        continue;
      }
      if (acts.length >= PICKER_MIN && acts.every((a) => a.tile && !a.tiles)) {
        buttons.push(button(acts[0], label, () => this.setPick(verb), { noTiles: true, data: { pick: verb } }));
        continue;
      }
      for (const a of acts) {
        buttons.push(button(a, label, () => this.onAction(strip(a)), { title: verb === "ready" ? t("ready_title") : null }));
      }
    }
    clear(this.actions, buttons);
    this.actions.hidden = buttons.length === 0;

    // The tile picker of a verb offered on many tiles (漳州 抢暗杠: one guess per kind).
    const picking = this.mode.pick && this.mode.pick !== "ready" ? groups.get(this.mode.pick) : null;
    if (picking) {
      const verb = this.mode.pick;
      const bySuit = new Map();
      for (const a of sortActions(picking)) {
        const suit = a.tile.length === 2 ? a.tile[1] : "z";
        if (!bySuit.has(suit)) bySuit.set(suit, []);
        bySuit.get(suit).push(a);
      }
      clear(
        this.picker,
        h("div", { class: "picker-title" }, verb === "rob_concealed_kong" ? t("pick_rob_kong") : t("pick_tile", { verb: labelOf(verb, ownTurn, inPrompt, view) })),
        [...bySuit.values()].map((row) =>
          h(
            "div",
            { class: "picker-row" },
            row.map((a) =>
              h(
                "button",
                {
                  type: "button",
                  class: "pick",
                  disabled: ctx.pending,
                  dataset: { do: a.do, tile: a.tile },
                  onclick: () => this.onAction(strip(a)),
                },
                styledTile(a.tile, style, { w: 34 }),
              ),
            ),
          ),
        ),
      );
      this.picker.hidden = false;
    } else {
      clear(this.picker);
      this.picker.hidden = true;
    }

    // The line above the hand: what is asked of you, with the clock.
    const parts = [];
    if (view && frame.hand.status === "playing" && frame.you !== null) {
      if (this.mode.pick === "ready") {
        parts.push(h("span", {}, t("ready_pick")));
      } else if (askedToClaim) {
        const chair = chairOfWind(frame.hand, view.window.seat);
        const name = seatName(frame.seats[chair]);
        parts.push(h("span", {}, view.window.on === "added_kong" ? t("added_kong", { name }) : t("discarded", { name })), styledTile(view.window.tile, style, { w: 24 }));
      } else if (inPrompt) {
        if (groups.has("rob_gold")) {
          parts.push(h("span", {}, t("prompt_rob_gold")));
          const gold = view.table?.gold || view.table?.wilds;
          if (gold) parts.push(...parseTiles(gold).slice(0, 1).map((c) => styledTile(c, style, { w: 24 })));
        } else if (groups.has("rob_concealed_kong")) {
          parts.push(h("span", {}, t("prompt_rob_kong")));
        } else {
          parts.push(h("span", {}, t("prompt_choose")));
        }
      } else if (legal.some((a) => a.do === "discard")) {
        parts.push(h("span", {}, t("your_turn")));
      }
      if (parts.length) {
        const clock = h("span", { class: "prompt-clock" });
        if (ctx.deadlineAt !== null) this.clocks.push(clock);
        parts.push(clock);
      }
    }
    clear(this.prompt, parts);
    this.prompt.hidden = parts.length === 0;
  }

  setPick(pick) {
    this.mode.pick = pick;
    this.rerender();
  }

  /** Called a few times a second with the milliseconds left of the current decision. */
  tick(msLeft) {
    const s = msLeft === null ? "" : String(Math.max(0, Math.ceil(msLeft / 1000)));
    for (const c of this.clocks) {
      c.textContent = s;
      c.classList.toggle("urgent", msLeft !== null && msLeft < 5000);
    }
  }
}

function labelOf(verb, ownTurn, inPrompt, view) {
  // In 漳州's 抢金 question a win is 三金倒 (three golds in hand).
  if (verb === "win" && inPrompt && view?.table?.gold) return t("three_golds");
  if (verb === "win" && view?.window?.on === "added_kong") return t("rob_kong_win");
  return verbLabel(verb, ownTurn);
}

function sortActions(acts) {
  const order = sortTiles(acts.map((a) => a.tile));
  return [...acts].sort((a, b) => order.indexOf(a.tile) - order.indexOf(b.tile));
}

function rank(verb) {
  if (verb === "pass") return 100;
  const i = VERB_ORDER.indexOf(verb);
  return i < 0 ? 50 : i;
}
