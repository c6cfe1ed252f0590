// The replay viewer (牌谱): steps forward and back through a finished hand's frames
// (games/records/replay.py viewer_frames), from one seat's view or with all hands open.
// Tiles, words and breakdown lines come from the table page's modules, imported, never copied:
// every label is in the reader's language (<html lang>), tiles are drawn as tiles, and an event
// is told in words ("东 打出 [5万]"), never by its engine name.
import { h } from "../js/dom.js";
import { LANG, has, t, tn, verbLabel, windName } from "../js/i18n.js";
import { itemDetail, itemLabel, itemValue, seatWord, visible } from "../js/breakdown.js";
import { parseTiles, sortTiles, tileEl } from "../js/tiles.js";
import { wildWords } from "../js/variant.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const frames = data.frames;
const header = data.header;
const chairOf = {};
for (const [chair, wind] of Object.entries(header.winds || {})) chairOf[wind] = chair;
// The rule set's word and mark for its wild tiles (财神 财, 得 得, 金 金), as the table page draws them.
const WILD = wildWords({ de: header.variant === "zhedong_de", gold: header.variant === "zhangzhou" });
let index = 0;
let viewer = "all";

const $ = (id) => document.getElementById(id);
const SIZE = 28;

function tile(code, opts = {}) {
  return tileEl(code, { w: SIZE, lang: LANG, ...opts });
}

/** A few tiles inline in a sentence (an event's tile, a meld). */
function inline(text) {
  return h("span", { class: "rp-inline" }, parseTiles(text || "").map((c) => tileEl(c, { w: 18, lang: LANG })));
}

// Whether the viewer may see this seat's concealed tiles.
const sees = (seat) => viewer === "all" || viewer === seat;

// What the engine calls each event, in the reader's words (i18n.js "rp_ev_*"); an event the
// viewer has no words for is told as "an event of the rule set", never by its raw name.
function verb(kind) {
  return has(`rp_ev_${kind}`) ? t(`rp_ev_${kind}`) : t("rp_ev_other");
}

/** An event as the viewer would have seen it live: private parts only for its own seat. */
function eventItem(ev) {
  const seat = ev.seat === null || ev.seat === undefined ? null : "ESWN"[ev.seat];
  const out = { ...(ev.data || {}) };
  if (seat && sees(seat)) Object.assign(out, ev.private || {});
  const parts = [];
  if (seat) parts.push(h("span", { class: "rp-ev-seat" }, seatWord(seat)), " ");
  let kind = ev.kind;
  if (kind === "draw" && out.from === "tail") kind = "draw_tail";
  parts.push(h("span", { class: "rp-ev-verb" }, verb(kind)));
  if (ev.kind === "hand_end") return h("li", { dataset: { kind: ev.kind } }, parts);
  const shown = out.meld?.tiles || out.tile || out.guess;
  if (shown) parts.push(" ", inline(shown));
  else if (ev.kind === "draw") parts.push(" ", tileEl(null, { w: 18 }));
  if (typeof out.from === "string" && "ESWN".includes(out.from) && out.from.length === 1) parts.push(" ", t("rp_from", { seat: seatWord(out.from) }));
  if (ev.kind === "win" && out.source && has(`rp_src_${out.source}`)) parts.push(" · ", t(`rp_src_${out.source}`));
  if (ev.kind === "you" && out.level) parts.push(" ", String(out.level));
  if (ev.kind === "fenbing" && out.each !== undefined) parts.push(" ", t("rp_each", { n: out.each }));
  if (ev.kind === "follow_wind" && out.amount !== undefined) parts.push(" ", t("rp_each", { n: out.amount }));
  return h("li", { dataset: { kind: ev.kind } }, parts);
}

/** The finished hand: who won, each seat's points, and the breakdown lines in words. */
function resultEl(result, winner) {
  const deltas = result.deltas || {};
  const head = result.status === "win" && winner
    ? t(result.self_drawn ? "rp_result_self" : "rp_result_win", { seat: seatWord(winner) })
    : result.win_kind === "false_win" ? t("win_kind_false_win") : t("result_draw");
  const lines = (result.breakdown || []).filter(visible).map((b) =>
    h(
      "tr",
      { dataset: { code: b.code || b.name } },
      h("td", { class: "bd-label" }, itemLabel(b)),
      h("td", { class: "num bd-value" }, itemValue(b)),
      h("td", { class: "bd-detail" }, itemDetail(b)),
    ),
  );
  return h(
    "section",
    { class: "rp-result-box" },
    h("p", { class: "rp-result" }, head, " · ", Object.entries(deltas).map(([s, v]) => `${seatWord(s)} ${v > 0 ? "+" : ""}${v}`).join("  ")),
    lines.length
      ? h(
          "table",
          { class: "breakdown rp-breakdown" },
          h("thead", {}, h("tr", {}, h("th", {}, t("item")), h("th", { class: "num" }, t("value")), h("th", {}, t("detail")))),
          h("tbody", {}, lines),
        )
      : null,
  );
}

function markWinning(el) {
  el.classList.add("win-tile");
  el.dataset.winTile = "1";
  el.title = t("winning_tile");
  return el;
}

// ------------------------------------------------------------------ the engine's analysis
// Each frame's judgements (games/engine/insight/analysis.py, docs/api.md): shown for the seats
// whose hand the viewer sees (the alternatives are tiles of that hand), the summary for all.

/** What a choice does, as the reader says it: a discard is its tile, a claim its verb (and tiles). */
const COLON = LANG === "en" ? ": " : "：";

function mini(code, wildSet) {
  return tileEl(code, { w: 20, lang: LANG, wild: wildSet.has(code), mark: WILD.mark });
}

function actionTiles(action, wildSet) {
  if (action.tiles) return h("span", { class: "rp-inline" }, parseTiles(action.tiles).map((c) => mini(c, wildSet)));
  if (action.tile) return mini(action.tile, wildSet);
  return null;
}

/** A choice as the start of a sentence: "打 [5万]" / "Discard [5m]", "碰 [5万5万5万]", "和牌" / "Win". */
function choiceAction(action, decision, wildSet) {
  if (action.do === "discard") return h("span", { class: "rp-an-act" }, t("rp_an_opt_discard"), " ", mini(action.tile, wildSet));
  if (action.do === "win") return h("span", { class: "rp-an-act" }, t("rp_an_opt_win"));
  if (action.do === "pass") return h("span", { class: "rp-an-act" }, t("rp_an_opt_pass"));
  const tiles = actionTiles(action, wildSet);
  return h("span", { class: "rp-an-act" }, verbLabel(action.do, decision === "turn"), tiles ? [" ", tiles] : null);
}

/** What the seat did, as a sentence's subject and verb: "东家打出 [5万]" / "East discarded [5m]". */
function deedEl(j, wildSet) {
  const seat = seatWord(j.seat);
  const action = j.action;
  if (action.do === "discard") return h("span", { class: "rp-an-act" }, t("rp_an_did_discard", { seat }), " ", mini(action.tile, wildSet));
  if (action.do === "win") return h("span", { class: "rp-an-act" }, t("rp_an_did_win", { seat }));
  if (action.do === "pass") return h("span", { class: "rp-an-act" }, t("rp_an_did_pass", { seat }));
  const tiles = actionTiles(action, wildSet);
  return h("span", { class: "rp-an-act" }, t("rp_an_did_verb", { seat, verb: verbLabel(action.do, j.decision === "turn") }), tiles ? [" ", tiles] : null);
}

/** How far from ready, in words: "二向听" / "2 from ready", "听牌" / "ready", "和牌" / "won". */
function distanceWord(d) {
  if (d === null || d === undefined) return t("rp_an_dist_won");
  if (d === 0) return t("rp_an_dist_ready");
  return t("rp_an_dist_n", { n: LANG === "en" ? d : chineseNumber(d) });
}

function chineseNumber(n) {
  return n >= 1 && n <= 10 ? "一二三四五六七八九十"[n - 1] : String(n);
}

/** The tiles a choice waits on (ready) or that bring it closer (not ready), as the end of a
 * sentence: "，听 [3万][6万]（未见 5 张）" / ", waiting on [3m][6m] (5 unseen)". */
function gainEl(choice, wildSet) {
  if (choice.wins) return null;
  const w = choice.ready ? choice.waits : choice.useful;
  if (!w) return null;
  const total = tn("rp_an_gain_unseen", w.unseen, { n: w.unseen });
  if (w.any_tile) return h("span", { class: "rp-an-gain" }, t("rp_an_gain_any"), LANG === "en" ? " " : "", total);
  const each = w.tiles.map((x) =>
    h(
      "span",
      { class: "rp-an-wait", title: tn("rp_an_unseen", x.unseen, { n: x.unseen }) },
      mini(x.tile, wildSet),
      h("sub", {}, String(x.unseen)),
    ),
  );
  const label = t(choice.ready ? "rp_an_gain_waits" : "rp_an_gain_useful");
  return h("span", { class: "rp-an-gain" }, label, " ", h("span", { class: "rp-inline" }, each), LANG === "en" ? " " : "", total);
}

/** One of the best choices as a sentence: "打 [5万]：一向听，进张 […]（未见 12 张）（所选）。" /
 * "Discard [5m]: 1 from ready, improved by […] (12 unseen) (the one played)." */
function choiceEl(c, j, wildSet) {
  const same = JSON.stringify(c.action) === JSON.stringify(j.action);
  return h(
    "li",
    { class: `rp-an-choice${same ? " rp-an-chosen" : ""}` },
    choiceAction(c.action, j.decision, wildSet),
    c.wins && c.action.do === "win" ? null : [t("rp_an_sep"), c.wins ? t("rp_an_dist_won") : distanceWord(c.distance)],
    gainEl(c, wildSet),
    same ? t("rp_an_chosen") : "",
    t("rp_an_end"),
  );
}

function judgementEl(j, wildSet) {
  if (!sees(j.seat)) {
    return h("li", { class: "rp-an-item rp-an-hidden", dataset: { seat: j.seat, n: j.n } }, seatWord(j.seat), " ", t("rp_an_hidden"));
  }
  const verdict = j.clear_mistake
    ? h("span", { class: "rp-an-mark rp-an-bad", dataset: { reason: j.reason } }, `✗ ${t("rp_an_mistake")}${COLON}${t(`rp_an_reason_${j.reason}`)}${t("rp_an_end")}`)
    : j.chosen_is_best
      ? h("span", { class: "rp-an-mark rp-an-good" }, `✓ ${t("rp_an_good")}${t("rp_an_end")}`)
      : null;
  return h(
    "li",
    { class: `rp-an-item${j.clear_mistake ? " rp-an-mistake" : ""}`, dataset: { seat: j.seat, n: j.n, mistake: j.clear_mistake ? "1" : "0" } },
    // "东家打出 [5万]：二向听 → 一向听，进张 […]（未见 12 张）。✗ 明显失误：…。"
    h(
      "p",
      { class: "rp-an-head" },
      deedEl(j, wildSet),
      t("rp_an_sep"),
      h("span", { class: "rp-an-distance" }, t("rp_an_distance", { before: distanceWord(j.before), after: distanceWord(j.after) })),
      gainEl(j.chosen, wildSet),
      t("rp_an_end"),
      verdict ? " " : "",
      verdict,
    ),
    h("div", { class: "rp-an-row" }, h("span", { class: "rp-label" }, t("rp_an_best")), h("ol", { class: "rp-an-best" }, j.best.map((c) => choiceEl(c, j, wildSet)))),
  );
}

function summaryText(s) {
  const parts = [tn("rp_an_decisions", s.decisions, { n: s.decisions })];
  parts.push(s.clear_mistakes ? tn("rp_an_mistakes", s.clear_mistakes, { n: s.clear_mistakes }) : t("rp_an_no_mistakes"));
  if (s.ready_turns === null || s.ready_turns === undefined) parts.push(t("rp_an_never_ready"));
  else if (s.ready_turns === 0) parts.push(t("rp_an_ready_last"));
  else parts.push(tn("rp_an_ready_turns", s.ready_turns, { n: s.ready_turns }));
  return parts.join(LANG === "en" ? ", " : "，");
}

function renderAnalysis(frame, wildSet) {
  const box = $("rp-analysis");
  const judged = frame.judgements || [];
  box.replaceChildren(
    h("h2", {}, t("rp_an_title")),
    judged.length
      ? h("ol", { class: "rp-an-list" }, judged.map((j) => judgementEl(j, wildSet)))
      : h("p", { class: "rp-an-empty" }, t("rp_an_none")),
  );
  const summary = data.summary || [];
  $("rp-summary").replaceChildren(
    h("h2", {}, t("rp_an_summary")),
    h(
      "ul",
      { class: "rp-an-summary" },
      summary.map((s) =>
        h(
          "li",
          { dataset: { seat: s.seat, mistakes: s.clear_mistakes } },
          h("span", { class: "rp-ev-seat" }, `${seatWord(s.seat)} · ${(header.names || {})[chairOf[s.seat]] ?? ""}`),
          COLON,
          h("span", { class: "rp-an-summary-text" }, summaryText(s)),
        ),
      ),
    ),
  );
}

// ------------------------------------------------------------------ the table
// The seats sit round a felt as at the table: the viewed seat (or the reader's own, or East) at
// the bottom, its 下家 on the right, the opposite seat at the top, its 上家 on the left; each
// seat's discards lie in front of it, towards the centre, which tells the wall and the step.
const SIDES = ["bottom", "right", "top", "left"];
const WINDS = "ESWN";

function bottomSeat() {
  if (viewer !== "all") return viewer;
  return header.reader_seat || "E";
}

function sideOfSeat(seat) {
  return SIDES[(WINDS.indexOf(seat) - WINDS.indexOf(bottomSeat()) + 4) % 4];
}

function seatEl(p, state, wildSet, wilds, result, winner) {
  const chair = chairOf[p.seat];
  const side = sideOfSeat(p.seat);
  const open = sees(p.seat);
  const big = side === "bottom" ? 34 : side === "top" ? SIZE : 24;
  const hand = open ? sortTiles(parseTiles(p.hand), wilds) : parseTiles(p.hand).map(() => null);
  const handTiles = hand.map((c) => tile(c, { w: big, wild: Boolean(c) && wildSet.has(c), mark: WILD.mark }));
  // The winning tile is marked in the winner's revealed hand (its last copy: the one won).
  if (open && p.seat === winner && result.win_tile) {
    const at = hand.lastIndexOf(result.win_tile);
    if (at >= 0) markWinning(handTiles[at]);
  }
  const handRow = h("div", { class: "rp-row rp-hand", title: t("rp_hand"), dataset: { concealed: open ? "open" : "hidden" } }, handTiles);
  if (p.drawn) handRow.append(tile(open ? p.drawn : null, { w: big, className: "rp-drawn", wild: open && wildSet.has(p.drawn), mark: WILD.mark }));
  const meldTiles = (open ? p.melds : p.melds_public).map((m) =>
    h("span", { class: "rp-meld" }, (m.tiles ? parseTiles(m.tiles) : [null, null, null, null]).map((c) => tile(c, { w: 24, wild: Boolean(c) && wildSet.has(c), mark: WILD.mark }))),
  );
  const flowers = p.flowers ? h("span", { class: "rp-flowers", title: t("rp_flowers") }, parseTiles(p.flowers).map((c) => tile(c, { w: 20 }))) : null;
  const discards = parseTiles(p.discards);
  const pond = h(
    "div",
    { class: "rp-pond", title: t("rp_discards"), dataset: { n: discards.length } },
    discards.map((c) => tile(c, { w: discards.length > 18 ? 22 : 26, wild: wildSet.has(c), mark: WILD.mark })),
  );
  const name = (header.names || {})[chair] ?? "";
  const turn = state.turn === p.seat && !result;
  return h(
    "section",
    { class: `rp-seat rp-side-${side}${turn ? " rp-turn" : ""}${p.seat === winner ? " rp-winner" : ""}`, dataset: { seat: p.seat, side } },
    h(
      "h2",
      { class: "rp-plate" },
      h("span", { class: "rp-plate-wind" }, windName(p.seat)),
      h("span", { class: "rp-plate-name" }, name),
      p.seat === header.reader_seat ? h("span", { class: "rp-plate-you" }, t("you")) : null,
      h("span", { class: "rp-plate-delta" }, result?.deltas?.[p.seat] !== undefined ? signedText(result.deltas[p.seat]) : ""),
    ),
    handRow,
    meldTiles.length || flowers ? h("div", { class: "rp-row rp-melds", title: t("rp_melds") }, meldTiles, flowers) : null,
    pond,
  );
}

function signedText(n) {
  return n > 0 ? `+${n}` : String(n);
}

function render() {
  const frame = frames[index];
  const state = frame.state;
  renderStep();
  const board = $("rp-board");
  const wilds = parseTiles(state.wilds || "");
  const wildSet = new Set(wilds);
  const result = state.result;
  const winner = result?.status === "win" ? result.winner : null;
  const seats = state.players.map((p) => seatEl(p, state, wildSet, wilds, result, winner));
  // "余 52 张 · 翻牌 [6筒] · 财神 [7条]": the wall, the face-up tiles and the wilds, as tiles.
  const info = [t("tiles_left", { n: state.wall_left })];
  if (state.face_up) info.push(" · ", t("indicator"), " ", inline(state.face_up));
  if (wilds.length) info.push(" · ", WILD.label, " ", inline(state.wilds));
  const events = $("rp-events");
  events.replaceChildren(...frame.events.map(eventItem));
  const centre = h("div", { class: "rp-centre" }, h("p", { class: "rp-info", id: "rp-info" }, info), events);
  board.replaceChildren(h("div", { class: "rp-felt", id: "rp-felt", dataset: { bottom: bottomSeat() } }, seats, centre));
  if (result) board.append(resultEl(result, winner));
  renderAnalysis(frame, wildSet);
}

// ------------------------------------------------------------------ stepping, auto-play, mistakes
// Auto-play's three speeds: the time each step stays on screen.
const SPEEDS = { slow: 1600, normal: 900, fast: 350 };
let speed = "normal";
let timer = null;
let mistakesOnly = false;

/** The seat whose mistakes the filter jumps between: the viewed seat, else the reader's own. */
function mistakeSeat() {
  return viewer !== "all" ? viewer : header.reader_seat || null;
}

/** The steps holding a clearly worse decision of that seat (of any seat when there is none). */
function mistakeSteps() {
  const seat = mistakeSeat();
  const out = [];
  frames.forEach((f, i) => {
    if ((f.judgements || []).some((j) => j.clear_mistake && (seat === null || j.seat === seat))) out.push(i);
  });
  return out;
}

function mistakesLabel() {
  const seat = mistakeSeat();
  if (seat === null) return t("rp_mistakes_all");
  return seat === header.reader_seat ? t("rp_mistakes") : t("rp_mistakes_seat", { seat: seatWord(seat) });
}

function renderStep() {
  const last = frames.length - 1;
  if (mistakesOnly) {
    const steps = mistakeSteps();
    const at = steps.indexOf(index);
    $("rp-step").textContent = steps.length ? (at >= 0 ? t("rp_mistake_at", { i: at + 1, n: steps.length }) : `${index} / ${last}`) : t("rp_mistake_none");
    $("rp-first").disabled = $("rp-back").disabled = !steps.some((i) => i < index);
    $("rp-forward").disabled = $("rp-last").disabled = !steps.some((i) => i > index);
  } else {
    $("rp-step").textContent = `${index} / ${last}`;
    $("rp-first").disabled = $("rp-back").disabled = index === 0;
    $("rp-forward").disabled = $("rp-last").disabled = index === last;
  }
  const toggle = $("rp-mistakes");
  if (toggle) {
    toggle.setAttribute("aria-pressed", mistakesOnly ? "true" : "false");
    toggle.classList.toggle("on", mistakesOnly);
    toggle.textContent = `${mistakesLabel()} (${mistakeSteps().length})`;
  }
  const play = $("rp-play");
  if (play) {
    play.textContent = timer ? `❚❚ ${t("rp_pause")}` : `▶ ${t("rp_play")}`;
    play.setAttribute("aria-pressed", timer ? "true" : "false");
  }
}

function go(i) {
  index = Math.max(0, Math.min(frames.length - 1, i));
  render();
}

/** One step on (or back): with the mistakes filter on, to the next (previous) mistake. */
function step(dir) {
  if (!mistakesOnly) return go(index + dir);
  const steps = mistakeSteps();
  const next = dir > 0 ? steps.find((i) => i > index) : [...steps].reverse().find((i) => i < index);
  if (next !== undefined) go(next);
}

function edge(dir) {
  if (!mistakesOnly) return go(dir > 0 ? frames.length - 1 : 0);
  const steps = mistakeSteps();
  if (steps.length) go(dir > 0 ? steps[steps.length - 1] : steps[0]);
}

function stop() {
  if (timer) clearInterval(timer);
  timer = null;
  renderStep();
}

function play() {
  if (timer) return stop();
  if (index >= frames.length - 1 && !mistakesOnly) go(0);
  timer = setInterval(() => {
    const before = index;
    step(1);
    if (index === before) stop();
  }, SPEEDS[speed]);
  renderStep();
}

function buildMore() {
  const more = $("rp-more");
  if (!more) return;
  const speedSelect = h(
    "select",
    { id: "rp-speed" },
    Object.keys(SPEEDS).map((k) => h("option", { value: k, selected: k === speed }, t(`rp_speed_${k}`))),
  );
  speedSelect.addEventListener("change", () => {
    speed = speedSelect.value;
    if (timer) {
      stop();
      play();
    }
  });
  more.replaceChildren(
    h("button", { type: "button", id: "rp-play", class: "rp-play", onclick: () => play() }),
    h("label", {}, `${t("rp_speed")} `, speedSelect),
    h("button", {
      type: "button",
      id: "rp-mistakes",
      class: "rp-mistakes",
      onclick: () => {
        mistakesOnly = !mistakesOnly;
        const steps = mistakeSteps();
        if (mistakesOnly && steps.length && !steps.includes(index)) go(steps.find((i) => i > index) ?? steps[0]);
        else renderStep();
      },
    }),
  );
}

$("rp-first").addEventListener("click", () => edge(-1));
$("rp-back").addEventListener("click", () => step(-1));
$("rp-forward").addEventListener("click", () => step(1));
$("rp-last").addEventListener("click", () => edge(1));
$("rp-view").addEventListener("change", (e) => { viewer = e.target.value; render(); });
document.addEventListener("keydown", (e) => {
  if (e.target.closest && e.target.closest("select, input, textarea")) return;
  if (e.key === "ArrowRight") step(1);
  else if (e.key === "ArrowLeft") step(-1);
});
buildMore();
render();
