// The felt: four seats (strip of tiles + melds + flowers, discard pond, name plate), the centre
// panel, the table-info panel, the player's claim buttons.  Rendered from one complete frame
// (docs/protocol.md).
//
// Geometry: the stage is a fixed 1100×760 design (table.css); every other seat's strip and pond
// is the bottom one's layout rotated (right: -90°, top: 180°, left: 90°), as on a real table.

import { clear, h, signed } from "./dom.js";
import { claimVerdict, hintsOf, readyTiles, renderHints, verdictTag } from "./hints.js";
import { botBadge, LANG, playerName, t, verbLabel, windName } from "./i18n.js";
import { refusalText } from "./refusals.js";
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
// The phone dock (docs/ui.md, "Phone layout"): own tiles at full size outside the scaled felt.
const PHONE = { minTile: 36, maxPortrait: 46, maxLandscape: 42, meld: 28, drawnGap: 10 };

/** Draw and discard animations run only when the reader has not asked for reduced motion. */
export function motionAllowed() {
  return !window.matchMedia || !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

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
  return playerName(seat) || t("empty_chair");
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
  constructor(stage, { onDiscard, onAction, onWhy = () => {} }) {
    this.stage = stage;
    this.onDiscard = onDiscard;
    this.onAction = onAction;
    this.onWhy = onWhy; // a dimmed own tile tapped: why it may not go (view.held_back)
    this.strips = SIDES.map((s) => h("div", { class: `strip strip-${s}`, dataset: { side: s } }));
    this.ponds = SIDES.map((s) => h("div", { class: `pond pond-${s}`, dataset: { side: s } }));
    this.plates = SIDES.map((s) => h("div", { class: `plate plate-${s}`, dataset: { side: s } }));
    this.center = h("div", { class: "center", id: "mj-center" });
    this.info = h("div", { class: "table-info", id: "mj-table-info", hidden: true });
    this.prompt = h("div", { class: "prompt", id: "mj-prompt", "aria-live": "polite" });
    this.actions = h("div", { class: "actions", id: "mj-actions" });
    this.picker = h("div", { class: "picker", id: "mj-picker", hidden: true });
    // 听牌 hints (hints.js): under the own hand; table.js places it (under the felt, or in the dock).
    this.hintsEl = h("div", { class: "hints", id: "mj-hints", hidden: true, "aria-live": "polite" });
    this.hints = null; // this frame's hand.hints (null: none shown)
    this.hintRows = new Map(); // tile code -> its row in the panel
    this.hintLit = null; // the tile code whose row is lit (hover / focus on a hand tile)
    this.clocks = [];
    // What the player is picking (reset whenever the decision changes): "ready" makes the hand's
    // tiles that may go with 报听 clickable; a verb name opens the tile picker of that verb.
    this.mode = { key: null, pick: null };
    this.last = null;
    // Set by table.js from the viewport: the phone layout docks the own strip, prompt and buttons.
    this.layout = { phone: false, portrait: false, handWidth: OWN_WIDTH };
    // Tap to select, tap again (or 打出) to discard: phone / touch unless one-tap is on.
    this.selectFirst = false;
    // The account's auto-pass (prefs.js): claim windows ask nothing of this seat.
    this.autoPass = false;
    this.selected = null; // {code, drawn, idx}: the raised tile (idx: its place in the sorted hand)
    this.selectedHand = null; // hand id the selection belongs to
    this.prevDrawn = undefined; // the drawn tile of the last own strip built (undefined: none built yet)
    this.promptClock = null;
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
    this.keepSelection(frame, view);
    this.clocks = [];
    this.stage.classList.toggle("in-hand", Boolean(view));
    this.stage.classList.toggle("pre-hand", preMode);
    const style = view ? tileStyle(view) : null;
    this.hints = view ? hintsOf(frame) : null;
    this.handId = view && hand.status === "playing" ? hand.id : null; // the hints panel keeps its last hints within a hand
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
        for (const el of [this.strips[side], this.ponds[side]]) {
          delete el.dataset.key;
          delete el.dataset.n;
          clear(el);
        }
      }
    }
    if (preMode) this.renderPreCenter(frame, pre, ctx);
    else this.renderCenter(frame, ctx, style);
    this.renderInfo(view);
    this.renderActions(preMode ? { ...frame, hand: null } : frame, ctx, style);
    this.renderHints(style);
  }

  /** The hints panel, rebuilt only when the hints (or the layout) change. */
  renderHints(style) {
    const key = JSON.stringify([this.hints, this.handId, this.layout.phone, style?.wilds || null, style?.standIns || null]);
    if (this.hintsEl.dataset.key === key) return;
    this.hintsEl.dataset.key = key;
    this.hintRows = renderHints(this.hintsEl, this.hints, {
      phone: this.layout.phone,
      hand: this.handId,
      tileOf: (code, w) => (style ? styledTile(code, style, { w }) : tile(code, { w })),
      onHover: (code) => this.lightHand(code),
    });
    this.hintLit = null;
    this.app()?.classList.toggle("has-hints", Boolean(this.hints));
  }

  app() {
    return this.stage.closest(".mj-app") || document.getElementById("mj-app");
  }

  /** A hand tile under the pointer (or focused): light its row in the hints panel. */
  lightHint(code) {
    if (this.hintLit === code) return;
    this.hintLit = code;
    for (const [tileCode, row] of this.hintRows) row.classList.toggle("lit", tileCode === code);
  }

  /** A hints row under the pointer: light the hand's tiles of that kind. */
  lightHand(code) {
    for (const el of this.strips[0].querySelectorAll("#mj-hand .tile")) el.classList.toggle("hint-lit", Boolean(code) && el.dataset.tile === code);
    this.lightHint(code);
  }

  rerender() {
    if (this.last) this.render(this.last.frame, this.last.ctx);
  }

  /** Drop the raised tile once it may no longer be discarded (a new hand, a claim, our turn over). */
  keepSelection(frame, view) {
    const sel = this.selected;
    if (!sel) return;
    const me = view?.players?.find((p) => p.hand !== null && p.hand !== undefined);
    const allowed = (view?.legal_actions || []).some((a) => a.do === "discard" && a.tile === sel.code);
    const stillThere = Boolean(me) && (sel.drawn ? me.drawn === sel.code : parseTiles(me.hand).includes(sel.code));
    if (!this.selectFirst || !allowed || !stillThere || this.selectedHand !== frame.hand?.id) this.selected = null;
  }

  /** Tap on an own tile: discard, or (select-first) raise it and discard on the second tap. */
  tapTile(code, drawn, idx = -1) {
    if (!this.selectFirst) {
      this.onDiscard(code);
      return;
    }
    const sel = this.selected;
    if (sel && sel.code === code && sel.drawn === drawn && sel.idx === idx) {
      this.selected = null;
      this.onDiscard(code);
      return;
    }
    this.selected = { code, drawn, idx };
    this.selectedHand = this.last?.frame?.hand?.id ?? null;
    this.rerender();
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
    if (seat?.is_bot) badges.push(h("span", { class: "badge bot" }, botBadge(seat)));
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
    if (own && side === 0) {
      // Rebuilt only when it changes: a tile replaced under the pointer between press and release
      // gets no click, and frames arrive several times a second (other seats' draws and discards).
      const legal = (view.legal_actions || []).filter((a) => a.do === "discard" || a.do === "ready");
      const key = JSON.stringify([
        frame.hand.id,
        player.hand,
        player.drawn,
        player.melds,
        player.flowers,
        legal,
        Boolean(ctx.pending),
        this.mode.pick,
        this.selected,
        this.selectFirst,
        this.layout,
        style.wilds,
        style.standIns,
        [...readyTiles(this.hints)],
      ]);
      if (el.dataset.key === key && el.isConnected) return;
      el.dataset.key = key;
    } else {
      delete el.dataset.key;
    }
    const children = [];
    let meldW;
    let flowerW;
    if (own && side === 0 && this.layout.phone) {
      meldW = PHONE.meld;
      flowerW = PHONE.meld - 4;
      children.push(this.ownHand(view, player, ctx, style, 0));
    } else if (own && side === 0) {
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
    const sorted = sortTiles(tiles, style.wilds);
    const keepsReady = readyTiles(this.hints); // hints: discarding these keeps the hand ready
    // The drawn tile slides in, unless it was already there (a rebuild) or motion is reduced.
    const animateDraw = Boolean(drawn) && this.prevDrawn !== undefined && this.prevDrawn !== drawn && motionAllowed();
    this.prevDrawn = drawn || null;
    let rows = null;
    if (this.layout.phone) {
      // Phone: as large as the dock allows; one row when every tile keeps ≥ 36 px, else two
      // rows (the drawn tile ends the second) — every tile in sight, none behind a scroll.
      const n = sorted.length + (drawn ? 1 : 0);
      const room = this.layout.handWidth - PHONE.drawnGap;
      const cap = this.layout.portrait ? PHONE.maxPortrait : PHONE.maxLandscape;
      const single = Math.floor(room / n) - 2;
      if (single >= PHONE.minTile) {
        w = Math.min(cap, single);
      } else {
        const first = Math.ceil(n / 2);
        rows = [sorted.slice(0, first), sorted.slice(first)];
        w = Math.min(cap, Math.floor(room / first) - 2);
      }
    }
    const sel = this.selected;
    const make = (code, isDrawn, idx = -1) => {
      const playable = active && allowed.has(code);
      const selected = playable && !picking && sel && sel.code === code && sel.drawn === isDrawn && sel.idx === idx;
      const hintReady = playable && !picking && keepsReady.has(code);
      const el = styledTile(code, style, {
        w,
        className: `${isDrawn ? "drawn" : "in-hand"}${playable ? " playable" : active ? " dimmed" : ""}${playable && picking ? " ready-pick" : ""}${selected ? " selected" : ""}${isDrawn && animateDraw ? " anim-draw" : ""}${hintReady ? " hint-ready" : ""}`,
      });
      if (hintReady) el.dataset.hint = t("hint_ready_mark");
      // A dimmed tile says why it may not go (温州's single honours, 报听's lock, ...).
      const why = active && !playable && !picking ? view.held_back?.[code] : null;
      if (why) {
        const text = refusalText(why);
        el.title = text;
        el.dataset.why = why.code;
        el.addEventListener("click", () => this.onWhy(text));
      }
      if (this.hints) {
        const light = () => this.lightHint(code);
        const unlight = () => this.lightHint(null);
        el.addEventListener("mouseenter", light);
        el.addEventListener("focus", light);
        el.addEventListener("mouseleave", unlight);
        el.addEventListener("blur", unlight);
      }
      if (playable) {
        el.tabIndex = 0;
        el.setAttribute("role", "button");
        if (selected) el.setAttribute("aria-pressed", "true");
        const choose = () => (picking ? this.onAction({ do: "ready", tile: code }) : this.tapTile(code, isDrawn, idx));
        el.addEventListener("click", choose);
        el.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") choose();
        });
      }
      return el;
    };
    let index = 0;
    const makeSorted = (code) => make(code, false, index++);
    const attrs = {
      class: `concealed own${picking ? " picking" : ""}${rows ? " two-rows" : ""}`,
      id: "mj-hand",
      dataset: { selectFirst: this.selectFirst ? "1" : "0", tileW: w },
    };
    if (rows) {
      return h(
        "span",
        attrs,
        h("span", { class: "hand-row" }, rows[0].map(makeSorted)),
        h("span", { class: "hand-row" }, rows[1].map(makeSorted), drawn ? make(drawn, true) : null),
      );
    }
    return h("span", attrs, sorted.map(makeSorted), drawn ? make(drawn, true) : null);
  }

  // ------------------------------------------------------------------ ponds
  renderPond(el, player, isLast, style) {
    const discards = parseTiles(player.discards);
    const claimed = new Set(player.claimed_discards || []);
    const last = discards.length - 1;
    // Rebuilt only when it changes, so that the new discard's animation runs once.
    const key = JSON.stringify([player.discards, player.claimed_discards || [], isLast, style.wilds, style.standIns]);
    if (el.dataset.key === key) return;
    const before = el.dataset.n === undefined ? null : Number(el.dataset.n);
    el.dataset.key = key;
    el.dataset.n = String(discards.length);
    const animate = before !== null && discards.length === before + 1 && isLast && motionAllowed();
    // Past four rows of six, seven smaller tiles a row keep a long river inside its square.
    const w = discards.length > 24 ? SIZE.pondDense : SIZE.pond;
    clear(
      el,
      discards.map((c, i) =>
        styledTile(c, style, {
          w,
          className: `${claimed.has(i) ? "claimed" : ""}${isLast && i === last && !claimed.has(i) ? " last" : ""}${animate && i === last ? " anim-discard" : ""}`,
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
    // With auto-pass on, the server passes every claim window for this seat (after the same
    // pause): no window asks anything of the player, so no button shows, not even for a moment.
    const claims = legal.filter((a) => a.do !== "discard" && a.do !== "pass");
    const askedToClaim = Boolean(view?.window) && claims.length > 0 && !this.autoPass;
    if (view?.window && !askedToClaim) legal = legal.filter((a) => a.do === "discard");
    const ownTurn = Boolean(view) && view.phase === "play" && view.turn === view.seat;
    const inPrompt = !view?.window && !legal.some((a) => a.do === "discard") && legal.some((a) => a.do !== "pass");
    // Rebuilt only when the question changes (as the hand): a claim button replaced between
    // press and release loses its click.  The prompt's clock element is kept and ticks on.
    const key = JSON.stringify([
      frame.hand?.id,
      frame.hand?.status,
      frame.you,
      view?.window || null,
      view?.phase,
      view?.turn,
      legal,
      Boolean(ctx.pending),
      this.mode.pick,
      this.selectFirst ? this.selected : null,
      ctx.deadlineAt !== null,
      view?.table?.gold || null,
      view?.table?.wilds || null,
      this.hints?.claims || null,
      this.autoPass,
    ]);
    if (this.actions.dataset.key === key) {
      if (this.promptClock && !this.prompt.hidden) this.clocks.push(this.promptClock);
      return;
    }
    this.actions.dataset.key = key;
    this.promptClock = null;
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
        extra.noTiles || a.do === "pass" ? null : verdictTag(claimVerdict(this.hints, a)),
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
    // Select-first (phone / touch): the raised tile goes with a second tap or this button.
    const sel = this.selectFirst ? this.selected : null;
    if (sel && legal.some((a) => a.do === "discard" && a.tile === sel.code) && !this.mode.pick) {
      buttons.unshift(
        h(
          "button",
          {
            type: "button",
            class: "act act-discard",
            id: "mj-discard-selected",
            disabled: ctx.pending,
            title: t("discard_selected_title"),
            dataset: { do: "discard-selected", tile: sel.code },
            onclick: () => this.tapTile(sel.code, sel.drawn, sel.idx),
          },
          h("span", { class: "act-label" }, t("discard_selected")),
          h("span", { class: "act-tiles" }, styledTile(sel.code, style, { w: 22 })),
        ),
      );
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
        parts.push(h("span", {}, this.selectFirst && this.selected ? t("tap_again") : t("your_turn")));
      }
      if (parts.length && ctx.deadlineAt !== null) {
        // The clock leads the prompt, in its own ring: set after the discarded tile its figure
        // would read as part of the tile.
        const clock = h("span", { class: "prompt-clock", id: "mj-prompt-clock", dataset: { unit: "1" } });
        this.clocks.push(clock);
        this.promptClock = clock;
        parts.unshift(clock);
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
      c.textContent = s && c.dataset.unit ? t("clock_unit", { s }) : s;
      if (c.dataset.unit) c.hidden = !s;
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
