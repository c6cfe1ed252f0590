// The felt: four seats (strip of tiles + melds, discard pond, name plate), the centre panel,
// the player's claim buttons.  Rendered from one complete frame (docs/protocol.md).
//
// Geometry: the stage is a fixed 1100×760 design (table.css); every other seat's strip and pond
// is the bottom one's layout rotated (right: -90°, top: 180°, left: 90°), as on a real table.

import { clear, h, signed } from "./dom.js";
import { LANG, t, verbLabel, windName } from "./i18n.js";
import { parseTiles, sortTiles, tileEl } from "./tiles.js";

export const SIDES = ["bottom", "right", "top", "left"];
const SEATS = "ESWN";

const SIZE = { hand: 50, myMeld: 38, pond: 32, pondDense: 27, other: 28 };
const VERB_ORDER = ["win", "rob_gold", "rob_concealed_kong", "kong", "pung", "chow", "ready"];

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

function tile(code, opts) {
  return tileEl(code, { lang: LANG, ...opts });
}

/** A meld with the claimed tile lying sideways on the side of the player it came from. */
function meldEl(meld, owner, w, own) {
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
    tiles.map((code, i) => tile(code, { w, sideways: i === sideways })),
  );
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
    this.prompt = h("div", { class: "prompt", id: "mj-prompt", "aria-live": "polite" });
    this.actions = h("div", { class: "actions", id: "mj-actions" });
    this.clocks = [];
    stage.append(...this.ponds, ...this.strips, ...this.plates, this.center, this.prompt, this.actions);
  }

  /**
   * ctx: {pending: a command is on its way, lastDiscard: wind of the latest discarder,
   *       deadlineAt: performance.now() time of the current decision's deadline}
   */
  render(frame, ctx) {
    const hand = frame.hand;
    const view = hand?.view || null;
    this.clocks = [];
    this.stage.classList.toggle("in-hand", Boolean(view));
    for (let chair = 0; chair < 4; chair++) {
      const side = sideOf(chair, frame.you);
      const seat = frame.seats[chair];
      const wind = hand ? hand.winds[String(chair)] : null;
      const player = view ? playerByWind(view, wind) : null;
      this.renderPlate(this.plates[side], frame, chair, seat, wind, player);
      if (player) {
        this.renderStrip(this.strips[side], frame, player, side, ctx);
        this.renderPond(this.ponds[side], player, ctx.lastDiscard === wind);
      } else {
        clear(this.strips[side]);
        clear(this.ponds[side]);
      }
    }
    this.renderCenter(frame, ctx);
    this.renderActions(frame, ctx);
  }

  // ------------------------------------------------------------------ plates
  renderPlate(el, frame, chair, seat, wind, player) {
    const hand = frame.hand;
    const view = hand?.view;
    if (!hand) {
      clear(el);
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const dealer = hand.dealer_position === chair;
    const active = view && view.phase === "play" && view.turn === wind;
    const badges = [];
    if (dealer) badges.push(h("span", { class: "badge dealer", title: t("dealer") }, t("dealer")));
    if (seat?.is_bot) badges.push(h("span", { class: "badge bot" }, t("bot")));
    if (seat?.auto_play && !seat?.is_bot) badges.push(h("span", { class: "badge auto" }, t("auto_play")));
    if (player?.flags?.xianggong) badges.push(h("span", { class: "badge xianggong" }, t("xianggong")));
    if (seat && !seat.connected && !seat.is_bot) badges.push(h("span", { class: "badge offline" }, t("offline")));
    if (seat?.left) badges.push(h("span", { class: "badge left" }, t("left_match")));
    for (const [flag, value] of Object.entries(player?.flags || {})) {
      if (flag !== "xianggong" && value === true) badges.push(h("span", { class: "badge flag" }, flag));
    }
    const delta = hand.deltas ? hand.deltas[String(chair)] : null;
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
  renderStrip(el, frame, player, side, ctx) {
    const view = frame.hand.view;
    const own = player.hand !== null && player.hand !== undefined;
    const revealed = view.revealed ? view.revealed[player.seat] : null;
    const wilds = wildsOf(view);
    const wildSet = new Set(wilds);
    const children = [];
    if (own && side === 0) {
      children.push(this.ownHand(view, player, wilds, wildSet, ctx));
    } else if (revealed !== null && revealed !== undefined) {
      const w = side === 0 ? SIZE.myMeld : SIZE.other;
      children.push(
        h("span", { class: "concealed revealed" }, sortTiles(parseTiles(revealed), wilds).map((c) => tile(c, { w, wild: wildSet.has(c) }))),
      );
    } else {
      const w = side === 0 ? SIZE.myMeld : SIZE.other;
      const backs = [];
      for (let i = 0; i < player.hand_count; i++) backs.push(tile(null, { w }));
      children.push(h("span", { class: "concealed backs" }, backs));
    }
    const meldW = side === 0 ? SIZE.myMeld : SIZE.other;
    if (player.melds.length) {
      children.push(h("span", { class: "melds" }, player.melds.map((m) => meldEl(m, player.seat, meldW, own))));
    }
    const flowers = parseTiles(player.flowers || "");
    if (flowers.length) {
      children.push(h("span", { class: "flowers" }, flowers.map((c) => tile(c, { w: Math.round(meldW * 0.8) }))));
    }
    clear(el, ...children);
  }

  ownHand(view, player, wilds, wildSet, ctx) {
    const tiles = parseTiles(player.hand);
    const drawn = player.drawn;
    if (drawn) {
      const i = tiles.lastIndexOf(drawn);
      if (i >= 0) tiles.splice(i, 1);
    }
    const legal = view.legal_actions || [];
    const discardable = new Set(legal.filter((a) => a.do === "discard").map((a) => a.tile));
    const canDiscard = discardable.size > 0 && !ctx.pending;
    const make = (code, extra) => {
      const playable = canDiscard && discardable.has(code);
      const el = tile(code, {
        w: SIZE.hand,
        wild: wildSet.has(code),
        className: `${extra}${playable ? " playable" : canDiscard ? " dimmed" : ""}`,
      });
      if (playable) {
        el.tabIndex = 0;
        el.setAttribute("role", "button");
        el.addEventListener("click", () => this.onDiscard(code));
        el.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") this.onDiscard(code);
        });
      }
      return el;
    };
    return h(
      "span",
      { class: "concealed own", id: "mj-hand" },
      sortTiles(tiles, wilds).map((c) => make(c, "in-hand")),
      drawn ? make(drawn, "drawn") : null,
    );
  }

  // ------------------------------------------------------------------ ponds
  renderPond(el, player, isLast) {
    const discards = parseTiles(player.discards);
    const claimed = new Set(player.claimed_discards || []);
    const last = discards.length - 1;
    // Past four rows of six, seven smaller tiles a row keep a long river inside its square.
    const w = discards.length > 24 ? SIZE.pondDense : SIZE.pond;
    clear(
      el,
      discards.map((c, i) =>
        tile(c, {
          w,
          className: `${claimed.has(i) ? "claimed" : ""}${isLast && i === last && !claimed.has(i) ? " last" : ""}`,
        }),
      ),
    );
  }

  // ------------------------------------------------------------------ centre
  renderCenter(frame, ctx) {
    const hand = frame.hand;
    const view = hand?.view;
    if (!view) {
      clear(this.center);
      this.center.hidden = true;
      return;
    }
    this.center.hidden = false;
    const compass = [];
    for (let chair = 0; chair < 4; chair++) {
      const side = SIDES[sideOf(chair, frame.you)];
      const wind = hand.winds[String(chair)];
      const active = view.phase === "play" && view.turn === wind;
      compass.push(
        h("div", { class: `compass compass-${side}${active ? " active" : ""}${wind === "E" ? " east" : ""}` }, windName(wind)),
      );
    }
    const info = view.table || {};
    const marks = [];
    if (info.indicator) {
      marks.push(h("div", { class: "mark" }, h("div", { class: "mark-label" }, t("indicator")), tile(info.indicator, { w: 30 })));
    }
    const wilds = parseTiles(info.wilds || "");
    if (wilds.length) {
      marks.push(
        h("div", { class: "mark" }, h("div", { class: "mark-label" }, t("wild")), wilds.map((c) => tile(c, { w: 30, wild: true }))),
      );
    }
    const clock = h("div", { class: "clock", id: "mj-clock" });
    if (ctx.deadlineAt !== null && hand.status === "playing") this.clocks.push(clock);
    let who = "";
    if (hand.status === "playing") {
      if (view.phase === "claim") who = t("claim_window");
      else {
        const chair = chairOfWind(hand, view.turn);
        who = chair === frame.you ? t("your_turn") : t("waiting_for", { name: seatName(frame.seats[chair]) });
      }
    } else {
      who = t("hand_end");
    }
    clear(
      this.center,
      compass,
      h(
        "div",
        { class: "center-core" },
        h("div", { class: "wall-left", id: "mj-wall-left", dataset: { n: view.wall_left } }, t("tiles_left", { n: view.wall_left })),
        h("div", { class: "marks" }, marks),
        clock,
        h("div", { class: "who" }, who),
      ),
    );
  }

  // ------------------------------------------------------------------ actions
  renderActions(frame, ctx) {
    const view = frame.hand?.view;
    let legal = (view && frame.hand.status === "playing" && view.legal_actions) || [];
    // Claim protection opens every discard's window to every seat; a window where all you may
    // do is pass passes by itself after a short pause, so it asks nothing of you.
    const claims = legal.filter((a) => a.do !== "discard" && a.do !== "pass");
    const askedToClaim = Boolean(view?.window) && claims.length > 0;
    if (view?.window && !askedToClaim) legal = legal.filter((a) => a.do !== "pass");
    const buttons = [];
    const ownTurn = view && view.phase === "play" && view.turn === view.seat;
    const sorted = legal
      .filter((a) => a.do !== "discard")
      .sort((a, b) => rank(a.do) - rank(b.do));
    for (const a of sorted) {
      const action = { ...a };
      delete action.seat;
      const minis = [];
      if (a.tiles) minis.push(...parseTiles(a.tiles).map((c) => tile(c, { w: 22 })));
      else if (a.tile && a.do !== "pass") minis.push(tile(a.tile, { w: 22 }));
      buttons.push(
        h(
          "button",
          {
            type: "button",
            class: `act act-${a.do}`,
            disabled: ctx.pending,
            dataset: { do: a.do, tile: a.tile || "", tiles: a.tiles || "" },
            onclick: () => this.onAction(action),
          },
          h("span", { class: "act-label" }, verbLabel(a.do, ownTurn)),
          minis.length ? h("span", { class: "act-tiles" }, minis) : null,
        ),
      );
    }
    clear(this.actions, buttons);
    this.actions.hidden = buttons.length === 0;

    // The line above the hand: what is asked of you, with the clock.
    const parts = [];
    if (view && frame.hand.status === "playing" && frame.you !== null) {
      if (askedToClaim) {
        const chair = chairOfWind(frame.hand, view.window.seat);
        parts.push(h("span", {}, t("discarded", { name: seatName(frame.seats[chair]) })), tile(view.window.tile, { w: 24 }));
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

  /** Called a few times a second with the milliseconds left of the current decision. */
  tick(msLeft) {
    const s = msLeft === null ? "" : String(Math.max(0, Math.ceil(msLeft / 1000)));
    for (const c of this.clocks) {
      c.textContent = s;
      c.classList.toggle("urgent", msLeft !== null && msLeft < 5000);
    }
  }
}

function rank(verb) {
  if (verb === "pass") return 100;
  const i = VERB_ORDER.indexOf(verb);
  return i < 0 ? 50 : i;
}
