// The table page: one socket, one state (the latest complete frame), one render.
//
// Modules: net.js (socket with heartbeat, resync and reconnect; REST calls), board.js (the felt),
// room.js (waiting room), dialogs.js (stake confirmation, hand end, messages), tiles.js (SVG
// tiles), i18n.js (words).  See docs/ui.md.

import { renderAutoPlay } from "./autoplay.js";
import { Board } from "./board.js";
import { WIN_MS, calloutsOf, showCallouts } from "./callouts.js";
import { confirmStake, fairLink, renderHandEnd, renderPreHand, toast } from "./dialogs.js";
import { clear, h } from "./dom.js";
import { t } from "./i18n.js";
import { TableSocket, apiGet, apiPost } from "./net.js";
import { coarsePointer, oneTapOn, oneTapToggle, phoneLayout } from "./phone.js";
import { TablePrefs, ask, discardQuestion, emotePicker, escapeRule, showBubble } from "./prefs.js";
import { refusalText } from "./refusals.js";
import { renderRoom, roomCountdownText } from "./room.js";
import { hideNotice, inviteControl, noteFinishedHand, showUnseated, unseatedByCountdown } from "./table_notes.js";
import { questionLabel } from "./variant.js";

const STAGE_W = 1100;
const STAGE_H = 760;
// The felt's design size per layout (table.css): the phone docks the bottom strip; held upright
// it gets a narrower felt of its own, the seats and ponds closer together.
const STAGES = { desktop: [STAGE_W, STAGE_H], landscape: [STAGE_W, 632], portrait: [700, 720] };
// A table with 听牌 hints keeps this much room under the felt for the hints panel (desktop), so
// that the felt keeps its size when the panel comes and goes with the player's decisions.
const HINTS_ROOM = 92;
// The wooden rim drawn round the felt (table.css: the stage's box-shadow), outside its box.
const FELT_RIM = 12;
// A large window's felt grows with it (1920×1080: ×1.3), to a point past which nothing reads better.
const MAX_SCALE = 1.6;

const app = document.getElementById("mj-app");
const wrap = document.getElementById("mj-stage-wrap");
const stage = document.getElementById("mj-stage");
const infoEl = document.getElementById("mj-info");
const headInfoEl = document.getElementById("mj-head-info");
const titleEl = document.getElementById("mj-title");
const head = document.getElementById("mj-head");
const me = app.dataset.userId ? Number(app.dataset.userId) : null;
const tableId = Number(app.dataset.tableId);
// The rule set's name in the reader's language (the frames carry the engine's Chinese name).
const variantName = (table) => app.dataset.variantName || table.variant_name;
const lobbyUrl = app.dataset.lobbyUrl || "/tables/";

const state = {
  frame: JSON.parse(document.getElementById("initial-state").textContent),
  receivedAt: performance.now(),
  pending: false, // a hand command is on its way
  choosing: false, // a pre-hand answer is on its way
  queuedChoice: null, // a pre-hand answer given while the socket was down: {key, value}
  roomPending: false, // a lobby call is on its way
  autoPlayPending: false, // a 托管 switch is on its way
  lastDiscard: null, // wind of the latest discarder: its last pond tile is highlighted
  closedHandEnd: null, // hand id whose result dialog the player closed
  wallet: null,
  walletHand: null, // hand id the wallet figure was read after
  conn: "connecting",
  lastReconnect: 0,
  standing: false, // a stand command of mine is on its way (an unseating is not)
  hintsTable: false, // the table gives 听牌 hints (table.hints, or hints seen on this page)
  celebrating: null, // hand id whose win is being called out: its result screen waits a moment
};

const board = new Board(stage, {
  onDiscard: (tile) => discard(tile),
  onAction: (action) => act(action),
  onWhy: (text) => toast(toasts, text, "info"),
});
// The account's auto-pass as the page was served (prefs.js reads the settings again).
board.autoPass = app.dataset.autoPass === "1";
const roomEl = h("div", { class: "room", id: "mj-room", hidden: true });
const handEndEl = h("div", { class: "overlay handend", id: "mj-handend", hidden: true });
const confirmEl = h("div", { class: "overlay", id: "mj-confirm", hidden: true });
const preHandEl = h("div", { class: "overlay prehand", id: "mj-prehand", hidden: true });
const toasts = h("div", { class: "toasts", id: "mj-toasts" });
stage.append(roomEl, preHandEl, confirmEl, toasts);
// The phone layout (phone.js): a dock fixed at the window's bottom takes the own strip, the
// prompt and the claim buttons; a fixed layer takes the dialogs and messages.  The result screen
// is in that layer in every layout: at the window's size, never scaled with the felt.
const dockBar = h("div", { class: "dock-bar", id: "mj-dock-bar" });
const dock = h("div", { class: "mj-dock", id: "mj-dock" }, dockBar);
const layer = h("div", { class: "mj-layer", id: "mj-layer" }, handEndEl);
// The dock's switch is also the account's one_tap_discard (prefs.js saves it: remembered per account).
const oneTap = oneTapToggle((on) => {
  prefs.saveOne("one_tap_discard", on);
  fit(true);
});
app.append(dock, layer);
// The 托管 control sits in the header, outside the scaled felt (autoplay.js).
const autoPlayEl = h("div", { class: "mj-autoplay", id: "mj-autoplay", hidden: true });
head?.append(autoPlayEl);

const inviteInfo = inviteControl(app.dataset.inviteUrl || "");
// prefs: the account's table settings (gear panel), quick phrases, the leave control (prefs.js).
const prefs = new TablePrefs({
  signedIn: me !== null,
  onChange: (values) => {
    // Auto-pass: the server passes every claim window for this seat; the page asks nothing.
    board.autoPass = Boolean(values.auto_pass_claims);
    fit(true);
  },
});
const prefsBar = h("div", { class: "mj-prefs-bar", id: "mj-prefs-bar" });
const emotes = emotePicker((code) => socket.send({ type: "emote", code }));
const leaveBtn = h("button", { type: "button", class: "btn secondary", id: "mj-leave", hidden: true, onclick: () => leave() }, t("leave"));
prefsBar.append(prefs.soundButton, emotes, leaveBtn, prefs.gear);
head?.append(prefsBar);
stage.append(prefs.panel);

async function discard(tile) {
  if (prefs.values.confirm_discard && !(await ask(confirmEl, { title: discardQuestion(tile), yes: t("discard"), id: "mj-confirm-discard" }))) return;
  act({ do: "discard", tile });
}

async function leave() {
  const table = state.frame.table;
  const text = escapeRule(Number(app.dataset.escapeBases || 0), table.stake);
  if (!(await ask(confirmEl, { title: t("leave_title"), text, yes: t("leave_confirm"), id: "mj-confirm-leave" }))) return;
  await command("stand");
}

function renderPrefsBar(frame) {
  const mine = me !== null ? frame.seats.find((s) => s.user_id === me) : null;
  const seated = Boolean(mine) && frame.you !== null && frame.you !== undefined;
  emotes.hidden = !seated;
  leaveBtn.hidden = !(seated && frame.table.status === "playing" && !mine.left);
}

let roomCountdown = null;
let preHandClock = null;
let nextHandEl = null;
let matchFinished = false;

// ---------------------------------------------------------------------------- socket
const socket = new TableSocket(app.dataset.wsPath, {
  onFrame: receive,
  onMessage: (msg) => {
    if (msg.type === "emote") {
      showBubble(stage, msg.position, msg.code);
      return;
    }
    if (msg.type === "refused" || msg.type === "error") state.autoPlayPending = false;
    if (msg.type === "refused") {
      state.pending = false;
      state.choosing = false;
      toast(toasts, t("refused", { reason: refusalText(msg) }), "error");
      render();
    } else if (msg.type === "error") {
      state.pending = false;
      state.choosing = false;
      toast(toasts, t("error", { reason: refusalText(msg) }), "error");
      render();
    }
  },
  onStatus: (kind, detail) => {
    if (kind === "open") {
      state.conn = "open";
      sendQueuedChoice();
    }
    else if (kind === "retry") state.conn = { retry: detail.delay };
    else if (kind === "closed") state.conn = detail.code === 4404 ? "not_found" : "private";
    else state.conn = "connecting";
    renderInfo();
  },
});

function receive(frame) {
  const prev = state.frame;
  if (!frame.hand || !prev?.hand || prev.hand.id !== frame.hand.id) state.lastDiscard = null;
  for (const e of frame.events || []) {
    if (e.kind === "discard") state.lastDiscard = e.seat;
  }
  if (frame.type === "snapshot" && frame.hand?.view?.window) state.lastDiscard = frame.hand.view.window.seat;
  // lobby: the ready countdown unseated me (I did not stand): say so on the page.
  if (unseatedByCountdown(prev, frame, me, state.standing)) showUnseated(frame.table.owner_id === me);
  if (me !== null && frame.seats?.some((s) => s.user_id === me)) hideNotice();
  noteFinishedHand(frame);
  // Sounds (on unless muted): the step's events, and a decision of yours opening.
  const youWind = frame.hand?.view?.seat ?? null;
  const asked = decisionOf(frame);
  if (frame.type !== "snapshot") prefs.play(frame.events, youWind, asked !== null && asked !== decisionOf(prev));
  // Call-outs on the felt (吃 碰 杠 和 …) by the seat that acted; a win's holds the result screen
  // back a moment, so that the felt shows it before the result covers it — never more than leaves
  // the result 3 s before the next hand (hand.deadline_in_ms: the time to the next deal).
  const callouts = calloutsOf(prev, frame);
  const toNext = frame.hand?.deadline_in_ms;
  const hold = toNext === null || toNext === undefined ? WIN_MS : Math.min(WIN_MS, toNext - 3000);
  if (callouts.some((c) => c.win) && frame.hand && hold > 0) {
    const handId = frame.hand.id;
    state.celebrating = handId;
    setTimeout(() => {
      if (state.celebrating === handId) {
        state.celebrating = null;
        render();
      }
    }, hold);
  }
  state.frame = frame;
  state.receivedAt = performance.now();
  state.pending = false;
  state.choosing = false;
  state.autoPlayPending = false;
  followSeat(frame);
  render();
  showCallouts(stage, frame, callouts);
}

/** The decision the frame asks of this reader, as a key (null: none): a discard of their own
 * turn, or a claim on a given discard (none with auto-pass on: the server answers for them). */
function decisionOf(frame) {
  const view = frame?.hand?.view;
  const legal = (frame?.hand?.status === "playing" && view?.legal_actions) || [];
  if (legal.some((a) => a.do === "discard")) return `turn:${frame.hand.id}:${view.turn}`;
  if (view?.window && board.autoPass) return null;
  if (legal.some((a) => a.do !== "pass" && a.do !== "discard")) return `ask:${frame.hand.id}:${JSON.stringify(view.window || null)}`;
  return null;
}

// The socket's group is fixed when it connects: after sitting down or standing up it must be
// reopened to see (or stop seeing) our own tiles.
function followSeat(frame) {
  if (me === null) return;
  const mine = frame.seats.find((s) => s.user_id === me);
  const expected = mine ? mine.position : null;
  if (expected !== frame.you && performance.now() - state.lastReconnect > 1500) {
    state.lastReconnect = performance.now();
    socket.reconnect();
  }
}

function act(action) {
  if (state.pending || !state.frame?.hand) return;
  if (!socket.act(action)) {
    toast(toasts, t("reconnecting", { s: 1 }), "error");
    return;
  }
  state.pending = true;
  render();
  // Should the answer be lost, do not lock the hand for good.
  setTimeout(() => {
    if (state.pending) {
      state.pending = false;
      render();
    }
  }, 4000);
}

/** Answer the open pre-hand question (买底 / 顶底 / 飘) with the choice's exact JSON value. */
function choose(key, value) {
  if (state.choosing) return;
  state.choosing = true;
  if (!socket.send({ type: "choose", key, value })) {
    // The socket is down (a phone's network, a seat change): the answer goes as soon as it is
    // back, if the question is still ours then (sendQueuedChoice), rather than being lost to the
    // default at the deadline.
    state.queuedChoice = { key, value };
    toast(toasts, t("choice_queued"), "info");
  }
  render();
  choosingTimeout();
}

// Should the answer be lost, free the buttons again after a while.
function choosingTimeout() {
  setTimeout(() => {
    if (state.choosing) {
      state.choosing = false;
      render();
    }
  }, 4000);
}

/** The socket is open again: send the pre-hand answer given while it was down. */
function sendQueuedChoice() {
  const queued = state.queuedChoice;
  state.queuedChoice = null;
  if (!queued || state.frame?.table?.pre_hand?.key !== queued.key || !preHandAsksMe(state.frame)) return;
  if (socket.send({ type: "choose", ...queued })) {
    state.choosing = true;
    render();
    choosingTimeout();
  }
}

/** Take our seat off 托管 (or put it on): {"type": "autoplay", "on": ...}. */
function switchAutoPlay(on) {
  if (state.autoPlayPending) return;
  if (!socket.send({ type: "autoplay", on })) {
    toast(toasts, t("reconnecting", { s: 1 }), "error");
    return;
  }
  state.autoPlayPending = true;
  render();
  setTimeout(() => {
    if (state.autoPlayPending) {
      state.autoPlayPending = false;
      render();
    }
  }, 4000);
}

// ---------------------------------------------------------------------------- lobby calls
async function command(name, arg) {
  const table = state.frame.table;
  const base = (app.dataset.apiBase || `/api/tables/${tableId}/`).replace(/\/$/, "");
  try {
    if (name === "ready") {
      if (!(await confirmStake(confirmEl, table, app.dataset.minBalance || null))) return;
    }
    state.roomPending = true;
    render();
    const reconnectsBefore = state.lastReconnect;
    if (name === "sit") await apiPost(`${base}/sit/`, arg === null || arg === undefined ? {} : { position: arg });
    else if (name === "stand") {
      state.standing = true; // my own leaving is no unseating (table_notes.js)
      await apiPost(`${base}/stand/`);
    }
    else if (name === "ready") await apiPost(`${base}/ready/`, { ready: true });
    else if (name === "unready") await apiPost(`${base}/ready/`, { ready: false });
    else if (name === "bots") await apiPost(`${base}/bots/`, arg ? { level: arg } : {});
    // The socket may already have followed the seat change (followSeat); else follow it now.
    if ((name === "sit" || name === "stand") && state.lastReconnect === reconnectsBefore) {
      state.lastReconnect = performance.now();
      socket.reconnect();
    }
  } catch (err) {
    toast(toasts, t("refused", { reason: err.message }), "error");
  } finally {
    state.roomPending = false;
    if (name === "stand") setTimeout(() => (state.standing = false), 3000); // the frames that follow
    render();
  }
}

// ---------------------------------------------------------------------------- wallet
async function refreshWallet(handId) {
  state.walletHand = handId;
  try {
    const account = await apiGet("/api/account/");
    state.wallet = account.balance;
    for (const el of document.querySelectorAll("[data-wallet-balance]")) el.textContent = String(account.balance);
  } catch {
    state.wallet = null;
  }
  render();
}

// ---------------------------------------------------------------------------- render
function deadlineLeft() {
  const ms = state.frame?.hand?.deadline_in_ms;
  if (ms === null || ms === undefined) return null;
  return ms - (performance.now() - state.receivedAt);
}

function preHandLeft() {
  const ms = state.frame?.table?.pre_hand?.deadline_in_ms;
  if (ms === null || ms === undefined) return null;
  return ms - (performance.now() - state.receivedAt);
}

/** Is the open pre-hand question asked of this player, still unanswered? */
function preHandAsksMe(frame) {
  const pre = frame.table.pre_hand;
  if (!pre || frame.you === null || frame.you === undefined) return false;
  return pre.asked.includes(frame.you) && pre.answers?.[String(frame.you)] === undefined;
}

function readyLeft() {
  const at = state.frame?.table?.ready_deadline;
  return at ? Date.parse(at) - Date.now() : null;
}

function render() {
  const frame = state.frame;
  if (!frame) return;
  const hand = frame.hand;
  const waiting = frame.table.status === "waiting";
  stage.classList.toggle("waiting", waiting);
  const inHand = Boolean(hand && hand.status === "playing" && frame.you !== null);
  // The window has room for the felt or the site's header, not both: bring the felt up when a
  // hand starts (a phone: the felt to the top, the dock below holds the hand and buttons; a
  // desktop: the table's own header to the top, its controls above the felt fitted under it).
  // After this render: the waiting room above the felt goes away in it.
  if (inHand && !app.classList.contains("in-hand")) {
    const top = app.classList.contains("phone") ? wrap : head || wrap;
    // fit() first: the page's room for the dock (which the hand has just filled) sets how far
    // the page can scroll.
    requestAnimationFrame(() => {
      fit();
      top.scrollIntoView({ block: "start" });
    });
  }
  app.classList.toggle("in-hand", inHand);
  app.dataset.status = frame.table.status;
  app.dataset.you = frame.you ?? "";
  const hintsTable = frame.table.hints === true || (frame.table.hints === undefined && (state.hintsTable || Boolean(hand?.hints)));
  if (hintsTable !== state.hintsTable) {
    state.hintsTable = hintsTable;
    app.classList.toggle("hints-table", hintsTable);
    requestAnimationFrame(() => fit(true));
  }

  board.render(frame, {
    pending: state.pending,
    lastDiscard: state.lastDiscard,
    deadlineAt: hand?.deadline_in_ms ?? null,
  });

  renderPrefsBar(frame);
  renderAutoPlay(autoPlayEl, frame, { pending: state.autoPlayPending, onSwitch: switchAutoPlay });

  if (waiting) {
    roomEl.hidden = false;
    roomCountdown = renderRoom(roomEl, frame, {
      me,
      pending: state.roomPending,
      onCommand: command,
      readyMsLeft: readyLeft(),
      rerender: render,
    });
  } else {
    roomEl.hidden = true;
    roomCountdown = null;
  }

  if (preHandAsksMe(frame)) {
    preHandClock = renderPreHand(preHandEl, frame, { pending: state.choosing, onChoose: choose });
  } else {
    preHandEl.hidden = true;
    clear(preHandEl);
    preHandClock = null;
  }

  if (hand && hand.status === "finished" && state.closedHandEnd !== hand.id && state.celebrating !== hand.id) {
    if (me !== null && frame.you !== null && state.walletHand !== hand.id) refreshWallet(hand.id);
    const shown = renderHandEnd(handEndEl, frame, {
      wallet: state.walletHand === hand.id ? state.wallet : null,
      onClose: () => {
        state.closedHandEnd = hand.id;
        render();
      },
    });
    nextHandEl = shown.next;
    matchFinished = shown.finished;
  } else {
    handEndEl.hidden = true;
    clear(handEndEl);
    nextHandEl = null;
  }
  renderInfo();
  tick();
}

function renderInfo() {
  const frame = state.frame;
  if (!frame) return;
  const table = frame.table;
  const hand = frame.hand;
  let conn;
  if (state.conn === "open") conn = h("span", { class: "conn ok", id: "mj-conn" }, t("connected"));
  else if (state.conn === "not_found") conn = h("span", { class: "conn bad", id: "mj-conn" }, t("not_found"));
  else if (state.conn === "private") conn = h("span", { class: "conn bad", id: "mj-conn" }, t("private_table"));
  else if (state.conn?.retry) conn = h("span", { class: "conn bad", id: "mj-conn" }, t("reconnecting", { s: Math.ceil(state.conn.retry / 1000) }));
  else conn = h("span", { class: "conn", id: "mj-conn" }, t("connecting"));
  const parts = [
    conn,
    h("span", { class: "info-variant" }, `${variantName(table)} · #${table.id}`),
    h("span", {}, `${t("stake")} ${table.stake}`),
    hand ? h("span", {}, t("hand_no", { n: hand.number, total: table.hands_total })) : null,
  ];
  if (frame.you === null) parts.push(h("span", { class: "badge" }, t("spectating")));
  if (table.watchers) parts.push(h("span", { class: "watchers", id: "mj-watchers" }, t("watchers", { n: table.watchers })));
  if (app.dataset.roomCode) parts.push(h("span", {}, `${t("room_code")} `, h("strong", { class: "room-code" }, app.dataset.roomCode)));
  if (app.dataset.inviteUrl) parts.push(inviteInfo); // the owner's invite link (kept: re-render keeps the field's state)
  if (table.status === "finished") parts.push(h("a", { href: lobbyUrl }, t("back_to_lobby")));
  if (hand) {
    // The wall commitment and the seed behind "provably fair", not two lines of hex on every table.
    parts.push(
      h(
        "details",
        { class: "commit", id: "mj-fair-info" },
        h("summary", {}, t("fair_link")),
        h("span", { class: "fair-help" }, t("fair_help")),
        h("br"),
        `${t("commit")} `,
        h("code", { id: "mj-seed-hash", title: "SHA-256" }, hand.seed_hash || ""),
        h("br"),
        `${t("seed")} `,
        // A duplicate round's hand still played at another table: hand.withheld says why.
        hand.seed ? h("code", { id: "mj-seed" }, hand.seed) : h("em", {}, t(hand.withheld ? "seed_withheld" : "seed_hidden")),
        hand.status === "finished" && hand.seed ? [h("br"), fairLink(hand)] : null,
      ),
    );
  }
  clear(infoEl, parts);
  // The header: the rule set's name (server-rendered) and where the match stands.
  if (titleEl && variantName(table)) titleEl.textContent = variantName(table);
  if (headInfoEl) {
    const bits = [`${t("stake")} ${table.stake}`];
    if (hand) bits.push(t("hand_no", { n: hand.number, total: table.hands_total }));
    if (table.pre_hand) bits.push(t("pre_hand_waiting", { label: questionLabel(table.pre_hand) }));
    headInfoEl.textContent = bits.join(" · ");
  }
}

function tick() {
  const pre = state.frame?.table?.pre_hand;
  const preOpen = Boolean(pre) && state.frame.hand?.status !== "playing";
  board.tick(preOpen ? preHandLeft() : deadlineLeft());
  if (preHandClock) {
    const left = preHandLeft();
    preHandClock.textContent = left !== null ? t("pre_hand_left", { s: Math.max(0, Math.ceil(left / 1000)) }) : "";
    preHandClock.classList.toggle("urgent", left !== null && left < 5000);
  }
  if (roomCountdown) {
    const left = readyLeft();
    roomCountdown.textContent = roomCountdownText(state.frame.table, left);
  }
  if (nextHandEl) {
    const left = deadlineLeft();
    if (matchFinished) nextHandEl.textContent = t("match_over");
    else if (preOpen) nextHandEl.textContent = t("next_hand_question", { label: questionLabel(pre) });
    else if (left !== null && left > 0) nextHandEl.textContent = t("next_hand", { s: Math.ceil(left / 1000) });
    else nextHandEl.textContent = t("next_hand_soon");
  }
}

// ---------------------------------------------------------------------------- layout
let layoutKey = null;

/** Put the parts where the layout wants them: in the felt (desktop) or docked (phone). */
function place(phone) {
  if (phone) {
    dockBar.append(board.prompt, board.actions, oneTap);
    dock.append(board.picker, board.strips[0], board.hintsEl);
    layer.append(handEndEl, preHandEl, confirmEl, prefs.panel, toasts);
    wrap.before(roomEl);
  } else {
    stage.append(board.strips[0], board.prompt, board.actions, board.picker, roomEl, preHandEl, confirmEl, prefs.panel, toasts);
    layer.append(handEndEl);
    wrap.after(board.hintsEl); // under the felt, at the page's own size
    head?.append(oneTap);
  }
}

function fit(force = false) {
  const mode = phoneLayout();
  const phone = mode !== null;
  const touch = phone || coarsePointer();
  const key = `${mode}:${touch}:${oneTapOn()}:${phone ? dock.clientWidth : 0}`;
  if (key !== layoutKey || force === true) {
    const first = layoutKey === null;
    const moved = first ? phone : layoutKey.split(":")[0] !== String(mode);
    layoutKey = key;
    app.classList.toggle("phone", phone);
    app.dataset.layout = mode || "desktop";
    if (moved) place(phone);
    else if (first) {
      head?.append(oneTap);
      wrap.after(board.hintsEl);
    }
    oneTap.hidden = !touch;
    board.layout = { phone, portrait: mode === "portrait", handWidth: phone ? dock.clientWidth - 12 : 1070 };
    board.selectFirst = touch && !oneTapOn();
    if (!board.selectFirst) board.selected = null;
    board.rerender();
  }
  const [stageW, stageH] = STAGES[mode || "desktop"];
  const docked = phone ? dock.offsetHeight : 0;
  document.body.style.paddingBottom = phone ? `${docked + 8}px` : "";
  if (!phone && head && app.classList.contains("in-hand")) {
    // The felt below is sized for the table's own header at the window's top: the page must be
    // long enough to scroll there (a short page would leave the hand below the window's edge).
    const headTop = head.getBoundingClientRect().top + window.scrollY;
    const short = headTop + window.innerHeight - document.documentElement.scrollHeight;
    if (short > 0) document.body.style.paddingBottom = `${Math.ceil(short)}px`;
  }
  const width = wrap.parentElement.clientWidth - (phone ? 0 : 2 * FELT_RIM);
  // On a phone the felt fits above the dock.  On a desktop it takes the window's height under
  // the table's own header (the site's header scrolls away as a hand starts), less the rim, and
  // the hints panel's room on a table with hints; the info line under it may scroll.
  const headed = head ? wrap.getBoundingClientRect().top - head.getBoundingClientRect().top : 0;
  const height = phone
    ? Math.max(stageH * 0.3, window.innerHeight - docked - 8)
    : Math.max(STAGE_H * 0.55, window.innerHeight - headed - FELT_RIM - 4 - (state.hintsTable ? HINTS_ROOM : 0));
  const scale = Math.min(width / stageW, height / stageH, MAX_SCALE);
  stage.style.transform = `scale(${scale})`;
  wrap.style.width = `${stageW * scale}px`;
  wrap.style.height = `${stageH * scale}px`;
  board.hintsEl.style.maxWidth = phone ? "" : `${stageW * scale}px`;
}

window.addEventListener("resize", () => fit());
// The dock grows with claim buttons and melds: the felt above it follows.
if (window.ResizeObserver) new ResizeObserver(() => fit()).observe(dock);
fit();
render();
socket.connect();
setInterval(tick, 250);
