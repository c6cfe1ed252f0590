// The replay viewer (牌谱): steps forward and back through a finished hand's frames
// (games/records/replay.py viewer_frames), from one seat's view or with all hands open.
// Tiles, words and breakdown lines come from the table page's modules, imported, never copied:
// every label is in the reader's language (<html lang>), tiles are drawn as tiles, and an event
// is told in words ("东 打出 [5万]"), never by its engine name.
import { h } from "../js/dom.js";
import { LANG, has, t, tn, verbLabel } from "../js/i18n.js";
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

function tiles(codes, opts = {}) {
  return codes.map((code) => tile(code, opts));
}

/** A few tiles inline in a sentence (an event's tile, a meld). */
function inline(text) {
  return h("span", { class: "rp-inline" }, parseTiles(text || "").map((c) => tileEl(c, { w: 18, lang: LANG })));
}

function row(label, ...children) {
  return h("div", { class: "rp-row" }, h("span", { class: "rp-label" }, label), ...children);
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

function choiceAction(action, decision, wildSet) {
  const mini = (code) => tileEl(code, { w: 20, lang: LANG, wild: wildSet.has(code), mark: WILD.mark });
  if (action.do === "discard") return h("span", { class: "rp-an-act" }, mini(action.tile));
  const parts = [verbLabel(action.do, decision === "turn")];
  if (action.tiles) parts.push(" ", h("span", { class: "rp-inline" }, parseTiles(action.tiles).map(mini)));
  else if (action.tile) parts.push(" ", mini(action.tile));
  return h("span", { class: "rp-an-act" }, parts);
}

/** The tiles a choice waits on (ready) or that bring it closer (not ready), each with its unseen copies. */
function gainEl(choice, wildSet) {
  if (choice.wins) return null;
  const w = choice.ready ? choice.waits : choice.useful;
  if (!w) return null;
  const label = t(choice.ready ? "rp_an_waits" : "rp_an_useful") + COLON;
  const total = tn("rp_an_unseen", w.unseen, { n: w.unseen });
  if (w.any_tile) return h("span", { class: "rp-an-gain" }, `${label}${t("rp_an_any_tile")} · ${total}`);
  const each = w.tiles.map((x) =>
    h(
      "span",
      { class: "rp-an-wait", title: tn("rp_an_unseen", x.unseen, { n: x.unseen }) },
      tileEl(x.tile, { w: 18, lang: LANG, wild: wildSet.has(x.tile), mark: WILD.mark }),
      h("sub", {}, String(x.unseen)),
    ),
  );
  return h("span", { class: "rp-an-gain" }, label, h("span", { class: "rp-inline" }, each), ` · ${total}`);
}

function distanceWord(d) {
  return d === null || d === undefined ? t("rp_an_won") : d === 0 ? `0 (${t("rp_an_ready")})` : String(d);
}

function judgementEl(j, wildSet) {
  if (!sees(j.seat)) {
    return h("li", { class: "rp-an-item rp-an-hidden", dataset: { seat: j.seat, n: j.n } }, seatWord(j.seat), " ", t("rp_an_hidden"));
  }
  const verdict = j.clear_mistake
    ? h("span", { class: "rp-an-mark rp-an-bad", dataset: { reason: j.reason } }, `✗ ${t("rp_an_mistake")}${COLON}${t(`rp_an_reason_${j.reason}`)}`)
    : j.chosen_is_best
      ? h("span", { class: "rp-an-mark rp-an-good" }, `✓ ${t("rp_an_good")}`)
      : null;
  const best = j.best.map((c) => {
    const same = JSON.stringify(c.action) === JSON.stringify(j.action);
    return h(
      "li",
      { class: `rp-an-choice${same ? " rp-an-chosen" : ""}` },
      choiceAction(c.action, j.decision, wildSet),
      " ",
      c.wins ? t("rp_an_won") : t("rp_an_after", { d: distanceWord(c.distance) }),
      same ? ` (${t("rp_an_chosen")})` : "",
      c.wins ? null : " · ",
      gainEl(c, wildSet),
    );
  });
  return h(
    "li",
    { class: `rp-an-item${j.clear_mistake ? " rp-an-mistake" : ""}`, dataset: { seat: j.seat, n: j.n, mistake: j.clear_mistake ? "1" : "0" } },
    h(
      "p",
      { class: "rp-an-head" },
      h("span", { class: "rp-ev-seat" }, seatWord(j.seat)),
      " ",
      choiceAction(j.action, j.decision, wildSet),
      " · ",
      h("span", { class: "rp-an-distance" }, t("rp_an_distance", { before: distanceWord(j.before), after: distanceWord(j.after) })),
      verdict ? " · " : "",
      verdict,
    ),
    gainEl(j.chosen, wildSet) ? h("p", { class: "rp-an-row" }, gainEl(j.chosen, wildSet)) : null,
    h("div", { class: "rp-an-row" }, h("span", { class: "rp-label" }, t("rp_an_best")), h("ol", { class: "rp-an-best" }, best)),
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

function render() {
  const frame = frames[index];
  const state = frame.state;
  $("rp-step").textContent = `${index} / ${frames.length - 1}`;
  $("rp-first").disabled = $("rp-back").disabled = index === 0;
  $("rp-forward").disabled = $("rp-last").disabled = index === frames.length - 1;
  const board = $("rp-board");
  board.replaceChildren();
  const wilds = parseTiles(state.wilds || "");
  const wildSet = new Set(wilds);
  const result = state.result;
  const winner = result?.status === "win" ? result.winner : null;
  for (const p of state.players) {
    const chair = chairOf[p.seat];
    const open = sees(p.seat);
    const hand = open ? sortTiles(parseTiles(p.hand), wilds) : parseTiles(p.hand).map(() => null);
    const handTiles = hand.map((c) => tile(c, { wild: Boolean(c) && wildSet.has(c), mark: WILD.mark }));
    // The winning tile is marked in the winner's revealed hand (its last copy: the one won).
    if (open && p.seat === winner && result.win_tile) {
      const at = hand.lastIndexOf(result.win_tile);
      if (at >= 0) markWinning(handTiles[at]);
    }
    const handRow = row(t("rp_hand"), handTiles);
    handRow.classList.add("rp-hand");
    handRow.dataset.concealed = open ? "open" : "hidden";
    if (p.drawn) handRow.append(tile(open ? p.drawn : null, { className: "rp-drawn", wild: open && wildSet.has(p.drawn), mark: WILD.mark }));
    const melds = (open ? p.melds : p.melds_public).map((m) => h("span", { class: "rp-meld" }, tiles(m.tiles ? parseTiles(m.tiles) : [null, null, null, null])));
    board.append(
      h(
        "section",
        { class: `rp-seat${state.turn === p.seat && !result ? " rp-turn" : ""}`, dataset: { seat: p.seat } },
        h("h2", {}, `${seatWord(p.seat)} · ${(header.names || {})[chair] ?? ""}`),
        handRow,
        row(t("rp_melds"), h("span", {}, melds)),
        p.flowers ? row(t("rp_flowers"), tiles(parseTiles(p.flowers))) : null,
        row(t("rp_discards"), tiles(parseTiles(p.discards))),
      ),
    );
  }
  // "余 52 张 · 翻牌 [6筒] · 财神 [7条]": the wall, the face-up tiles and the wilds, as tiles.
  const info = [t("tiles_left", { n: state.wall_left })];
  if (state.face_up) info.push(" · ", t("indicator"), " ", inline(state.face_up));
  if (wilds.length) info.push(" · ", WILD.label, " ", inline(state.wilds));
  board.append(h("p", { class: "rp-info", id: "rp-info" }, info));
  if (result) board.append(resultEl(result, winner));
  $("rp-events").replaceChildren(...frame.events.map(eventItem));
  renderAnalysis(frame, wildSet);
}

function go(i) {
  index = Math.max(0, Math.min(frames.length - 1, i));
  render();
}

$("rp-first").addEventListener("click", () => go(0));
$("rp-back").addEventListener("click", () => go(index - 1));
$("rp-forward").addEventListener("click", () => go(index + 1));
$("rp-last").addEventListener("click", () => go(frames.length - 1));
$("rp-view").addEventListener("change", (e) => { viewer = e.target.value; render(); });
document.addEventListener("keydown", (e) => {
  if (e.target.closest && e.target.closest("select, input, textarea")) return;
  if (e.key === "ArrowRight") go(index + 1);
  else if (e.key === "ArrowLeft") go(index - 1);
});
render();
