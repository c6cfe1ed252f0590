// The replay viewer (牌谱): steps forward and back through a finished hand's frames
// (games/replay.py viewer_frames), from one seat's view or with all hands open.
// Tiles come from the table page's module, imported, never copied.
import { parseTiles, sortTiles, tileEl } from "../js/tiles.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const frames = data.frames;
const header = data.header;
const chairOf = {};
for (const [chair, wind] of Object.entries(header.winds || {})) chairOf[wind] = chair;
let index = 0;
let viewer = "all";

const $ = (id) => document.getElementById(id);

function tiles(codes, opts = {}) {
  const frag = document.createDocumentFragment();
  for (const code of codes) frag.append(tileEl(code, { w: 28, ...opts }));
  return frag;
}

function row(label, ...children) {
  const div = document.createElement("div");
  div.className = "rp-row";
  const span = document.createElement("span");
  span.className = "rp-label";
  span.textContent = label;
  div.append(span, ...children);
  return div;
}

function meld(m, open) {
  const span = document.createElement("span");
  span.className = "rp-meld";
  const shown = open ? m.tiles : null;
  if (shown) span.append(tiles(parseTiles(shown)));
  else span.append(tiles([null, null, null, null]));
  return span;
}

// Whether the viewer may see this seat's concealed tiles.
const sees = (seat) => viewer === "all" || viewer === seat;

function eventText(ev) {
  // An event as the viewer would have seen it live: private parts only for its own seat.
  const seat = ev.seat === null || ev.seat === undefined ? null : "ESWN"[ev.seat];
  const out = { kind: ev.kind, ...(seat ? { seat } : {}), ...ev.data };
  if (seat && sees(seat)) Object.assign(out, ev.private);
  const parts = [out.seat ? `${out.seat}` : "", out.kind];
  if (out.tile) parts.push(out.tile);
  if (out.meld && out.meld.tiles) parts.push(out.meld.tiles);
  if (out.from && typeof out.from === "string") parts.push(`← ${out.from}`);
  return parts.filter(Boolean).join(" ");
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
  for (const p of state.players) {
    const box = document.createElement("section");
    box.className = `rp-seat${state.turn === p.seat && !state.result ? " rp-turn" : ""}`;
    box.dataset.seat = p.seat;
    const title = document.createElement("h2");
    const chair = chairOf[p.seat];
    title.textContent = `${p.seat} · ${(header.names || {})[chair] ?? ""}`;
    box.append(title);
    const hand = parseTiles(p.hand);
    const open = sees(p.seat);
    const handRow = open
      ? row("手牌", tiles(sortTiles(hand, wilds)))
      : row("手牌", tiles(hand.map(() => null)));
    handRow.classList.add("rp-hand");
    handRow.dataset.concealed = open ? "open" : "hidden";
    if (p.drawn) {
      const drawn = tileEl(open ? p.drawn : null, { w: 28, className: "rp-drawn" });
      handRow.append(drawn);
    }
    box.append(handRow);
    const melds = document.createElement("span");
    (open ? p.melds : p.melds_public).forEach((m) => melds.append(meld(m, true)));
    box.append(row("副露", melds));
    if (p.flowers) box.append(row("花", tiles(parseTiles(p.flowers))));
    box.append(row("牌河", tiles(parseTiles(p.discards))));
    board.append(box);
  }
  const info = document.createElement("p");
  info.textContent = `wall ${state.wall_left}` + (state.face_up ? ` · ${state.face_up}` : "");
  board.append(info);
  if (state.result) {
    const res = document.createElement("p");
    res.className = "rp-result";
    const d = state.result.deltas || {};
    res.textContent = `${state.result.winner ? state.result.winner + " wins" : "draw"} · ` +
      Object.entries(d).map(([s, v]) => `${s} ${v > 0 ? "+" : ""}${v}`).join("  ");
    board.append(res);
  }
  const list = $("rp-events");
  list.replaceChildren();
  for (const ev of frame.events) {
    const li = document.createElement("li");
    li.textContent = eventText(ev);
    list.append(li);
  }
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
