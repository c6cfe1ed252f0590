// The waiting room: the four chairs with their players, and Sit / Stand / Ready / Fill with bots.

import { clear, h } from "./dom.js";
import { botBadge, playerName, t, tn, windName } from "./i18n.js";
import { apiGet, apiPost } from "./net.js";

const SEATS = "ESWN";

// The table's rating option (GET/POST /api/tables/<id>/rating/, ratings/api.py), read once a page:
// {tableId, rated, rated_with_bots} once known, with `busy` while a change is being saved.
const rating = { tableId: null, known: false, rated: false, withBots: false, busy: false, error: "" };

function loadRating(tableId, rerender) {
  if (rating.tableId === tableId) return;
  Object.assign(rating, { tableId, known: false, error: "" });
  apiGet(`/api/tables/${tableId}/rating/`)
    .then((r) => Object.assign(rating, { known: true, rated: r.rated, withBots: r.rated_with_bots }))
    .catch(() => Object.assign(rating, { known: false }))
    .finally(rerender);
}

/** Whether the match counts for ratings, and for the owner of a table with bots the choice to
 *  rate it anyway (before the match; a hints table is never rated). */
function ratingNote(table, seats, isOwner, rerender) {
  if (table.hints) return h("p", { class: "room-note room-rating", dataset: { rated: "0" } }, t("room_hints_unrated"));
  loadRating(table.id, rerender);
  if (!rating.known) return null;
  const bots = seats.some((s) => s.is_bot);
  // Without bots the match is rated once four people sit (the answer "now" may still be no).
  const rated = bots ? rating.withBots : true;
  const line = h("p", { class: "room-note room-rating", dataset: { rated: rated ? "1" : "0" } }, rated ? t("room_rated") : t("room_unrated_bots"));
  if (!isOwner || table.status !== "waiting") return line;
  const box = h("input", {
    type: "checkbox",
    id: "mj-rated-with-bots",
    checked: rating.withBots,
    disabled: rating.busy,
    onchange: (ev) => {
      const want = ev.target.checked;
      rating.busy = true;
      apiPost(`/api/tables/${table.id}/rating/`, { rated_with_bots: want })
        .then((r) => Object.assign(rating, { rated: r.rated, withBots: r.rated_with_bots, error: "" }))
        .catch((err) => Object.assign(rating, { error: String(err.message || err) }))
        .finally(() => {
          rating.busy = false;
          rerender();
        });
    },
  });
  return h(
    "div",
    { class: "room-rating-option" },
    line,
    h("label", { class: "choice", for: "mj-rated-with-bots" }, box, " ", t("room_rate_with_bots")),
    rating.error ? h("p", { class: "room-note error", role: "alert" }, rating.error) : null,
  );
}

/** The room's clock line: the fourth seat's ready countdown, or at a quick-play table the wait
 *  before bots take the empty chairs. */
export function roomCountdownText(table, msLeft) {
  const seconds = msLeft !== null ? Math.max(0, Math.ceil(msLeft / 1000)) : null;
  if (table.quick_play) return seconds !== null ? t("quick_fill_countdown", { s: seconds }) : t("quick_fill_hint");
  return seconds !== null ? t("ready_countdown", { s: seconds }) : t("all_ready_hint");
}

/** What the room is drawn from, but its clock line and its rating note: equal keys draw the same
 *  room. */
function roomKey(table, seats, me, pending) {
  const fields = ["id", "owner_id", "dealer_position", "stake", "hands_total", "turn_seconds", "claim_seconds", "quick_play", "variant_name", "status", "hints"];
  return JSON.stringify([fields.map((f) => table[f]), seats, me, pending]);
}

/** Put the rating note drawn now where the room shows it (before the clock line), in place of
 *  the one it showed: the rest of the room keeps its elements. */
function replaceRatingNote(el, note, countdown) {
  const old = el.querySelector(".room-rating-option, .room-rating");
  if (old && note) old.replaceWith(note);
  else if (old) old.remove();
  else if (note) countdown.before(note);
}

/**
 * Render the room into `el` from a frame.  `me` is the signed-in user's id (null when signed
 * out); `onCommand(name, arg)` runs "sit" (chair), "stand", "ready", "unready", "bots" (level).
 */
export function renderRoom(el, frame, { me, pending, onCommand, readyMsLeft, rerender = () => {} }) {
  const table = frame.table;
  const seats = frame.seats;
  // A frame that changes nothing the room shows (a watcher came, a message) keeps its elements:
  // a button rebuilt between a press and its release loses the click (the browser sends it to
  // what the two have in common), and a level chosen in the list would go back to its default.
  // The table's rating option, read once a page, redraws only its own note when it comes in.
  if (!table.hints) loadRating(table.id, rerender);
  const key = roomKey(table, seats, me, pending);
  const ratingKey = JSON.stringify(rating);
  const mine = seats.find((s) => me !== null && s.user_id === me) || null;
  const isOwner = me !== null && table.owner_id === me;
  const shown = el.querySelector("#mj-ready-countdown");
  if (shown && el.dataset.roomKey === key) {
    if (el.dataset.ratingKey !== ratingKey) {
      el.dataset.ratingKey = ratingKey;
      replaceRatingNote(el, ratingNote(table, seats, isOwner, rerender), shown);
    }
    shown.textContent = roomCountdownText(table, readyMsLeft);
    return shown;
  }
  el.dataset.roomKey = key;
  el.dataset.ratingKey = ratingKey;
  const empty = seats.filter((s) => !s.is_bot && s.user_id === null).length;

  const chairs = seats.map((seat) => {
    const occupied = seat.is_bot || seat.user_id !== null;
    const wind = SEATS[(seat.position - table.dealer_position + 4) % 4];
    const badges = [];
    if (seat.user_id !== null && seat.user_id === table.owner_id) badges.push(h("span", { class: "badge owner" }, t("owner")));
    if (seat.is_bot) badges.push(h("span", { class: "badge bot" }, botBadge(seat)));
    if (occupied) {
      badges.push(
        h("span", { class: `badge ${seat.ready ? "ready" : "unready"}` }, seat.ready ? t("is_ready") : t("not_ready")),
      );
    }
    if (occupied && !seat.is_bot && !seat.connected) badges.push(h("span", { class: "badge offline" }, t("offline")));
    const you = mine && mine.position === seat.position;
    return h(
      "div",
      {
        class: `chair${you ? " you" : ""}${seat.ready ? " ready" : ""}${occupied ? "" : " empty"}`,
        dataset: { chair: seat.position, ready: seat.ready ? "1" : "0", bot: seat.is_bot ? "1" : "0" },
      },
      h("div", { class: "chair-wind" }, windName(wind)),
      h("div", { class: "chair-no" }, t("chair", { n: seat.position + 1 })),
      h("div", { class: "chair-name" }, occupied ? playerName(seat) || "?" : t("empty_chair"), you ? ` · ${t("you")}` : ""),
      h("div", { class: "chair-badges" }, badges),
      !occupied && !mine && me !== null
        ? h(
            "button",
            { type: "button", class: "btn small", disabled: pending, dataset: { cmd: "sit", chair: seat.position }, onclick: () => onCommand("sit", seat.position) },
            t("sit_here"),
          )
        : null,
    );
  });

  const buttons = [];
  if (me === null) {
    buttons.push(h("a", { class: "btn", href: `/accounts/login/?next=${encodeURIComponent(location.pathname)}` }, t("need_login")));
  } else if (!mine) {
    if (empty > 0) {
      buttons.push(h("button", { type: "button", class: "btn", disabled: pending, dataset: { cmd: "sit" }, onclick: () => onCommand("sit", null) }, t("sit")));
    }
  } else {
    if (mine.ready) {
      buttons.push(h("button", { type: "button", class: "btn secondary", disabled: pending, dataset: { cmd: "unready" }, onclick: () => onCommand("unready") }, t("unready")));
    } else {
      buttons.push(h("button", { type: "button", class: "btn primary", disabled: pending, dataset: { cmd: "ready" }, onclick: () => onCommand("ready") }, t("ready")));
    }
    // At a quick-play table standing up is how a player cancels the wait for people.
    const standWord = table.quick_play ? t("quick_cancel") : t("stand");
    buttons.push(h("button", { type: "button", class: "btn secondary", disabled: pending, dataset: { cmd: "stand" }, onclick: () => onCommand("stand") }, standWord));
  }
  // Only once the owner sits: filling every chair with bots would leave no seat for them.
  if (isOwner && mine && empty > 0) {
    const level = h(
      "select",
      { class: "bot-level", id: "mj-bot-level", "aria-label": t("bot_level"), title: t("bot_level"), disabled: pending },
      h("option", { value: "strong" }, t("level_strong")),
      h("option", { value: "easy" }, t("level_easy")),
    );
    buttons.push(level);
    buttons.push(h("button", { type: "button", class: "btn", disabled: pending, dataset: { cmd: "bots" }, onclick: () => onCommand("bots", level.value) }, t("fill_bots")));
  }

  const countdown = h("p", { class: "room-note", id: "mj-ready-countdown" });
  countdown.textContent = roomCountdownText(table, readyMsLeft);
  countdown.dataset.quick = table.quick_play ? "1" : "0";

  clear(
    el,
    h("h2", { class: "room-title" }, t("waiting_room"), h("span", { class: "room-variant" }, ` · ${document.getElementById("mj-app")?.dataset.variantName || table.variant_name}`)),
    h(
      "p",
      { class: "room-stake" },
      tn("stake_line", table.hands_total, { stake: table.stake, hands: table.hands_total, turn: table.turn_seconds, claim: table.claim_seconds }),
    ),
    h("div", { class: "chairs" }, chairs),
    h("div", { class: "room-actions" }, buttons),
    ratingNote(table, seats, isOwner, rerender),
    countdown,
  );
  return countdown;
}
