// The waiting room: the four chairs with their players, and Sit / Stand / Ready / Fill with bots.

import { clear, h } from "./dom.js";
import { botBadge, playerName, t, tn, windName } from "./i18n.js";
import { apiGet, apiPost } from "./net.js";

const SEATS = "ESWN";

// The bots' level last chosen in the room's list (kept when the list is drawn again).
let botLevel = "strong";

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

/**
 * Draw `parts` ([name, key, build] in the room's order) into `el`, each redrawn only when its key
 * changed since it was drawn: a button rebuilt between a press and its release loses the click
 * (the browser sends it to what the two have in common), and frames come at any moment — the
 * owner's own socket connecting marks their chair online just as the page shows "Fill with
 * bots".  A part's new element takes its old one's place; kept elements are never moved.
 * `build` may give null (nothing to show).
 */
function drawParts(el, parts) {
  const shown = new Map([...el.children].filter((c) => c.dataset.part).map((c) => [c.dataset.part, c]));
  let after = null; // the last part in place so far
  for (const [name, key, build] of parts) {
    const old = shown.get(name) || null;
    let node = old;
    if (!old || old.dataset.partKey !== key) {
      node = build();
      if (node) Object.assign(node.dataset, { part: name, partKey: key });
      if (old && node) old.replaceWith(node);
      else if (old) old.remove();
      else if (node) {
        if (after) after.after(node);
        else el.prepend(node);
      }
    }
    if (node) after = node;
  }
}

/**
 * Render the room into `el` from a frame.  `me` is the signed-in user's id (null when signed
 * out); `onCommand(name, arg)` runs "sit" (chair), "stand", "ready", "unready", "bots" (level).
 * Returns the room's clock line (the caller ticks it).
 */
export function renderRoom(el, frame, { me, pending, onCommand, readyMsLeft, rerender = () => {} }) {
  const table = frame.table;
  const seats = frame.seats;
  if (!table.hints) loadRating(table.id, rerender);
  const mine = seats.find((s) => me !== null && s.user_id === me) || null;
  const isOwner = me !== null && table.owner_id === me;
  if (!el.querySelector(":scope > [data-part]")) clear(el); // a room drawn before parts (or anything else)
  const empty = seats.filter((s) => !s.is_bot && s.user_id === null).length;
  const variantName = document.getElementById("mj-app")?.dataset.variantName || table.variant_name;
  const key = (...values) => JSON.stringify(values);

  const drawChairs = () =>
    h(
      "div",
      { class: "chairs" },
      seats.map((seat) => {
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
      }),
    );

  // Only once the owner sits: filling every chair with bots would leave no seat for them.
  const fills = isOwner && Boolean(mine) && empty > 0;
  const drawActions = () => {
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
    if (fills) {
      const level = h(
        "select",
        {
          class: "bot-level",
          id: "mj-bot-level",
          "aria-label": t("bot_level"),
          title: t("bot_level"),
          disabled: pending,
          onchange: (ev) => {
            botLevel = ev.target.value;
          },
        },
        h("option", { value: "strong", selected: botLevel === "strong" }, t("level_strong")),
        h("option", { value: "easy", selected: botLevel === "easy" }, t("level_easy")),
      );
      buttons.push(level);
      buttons.push(h("button", { type: "button", class: "btn", disabled: pending, dataset: { cmd: "bots" }, onclick: () => onCommand("bots", level.value) }, t("fill_bots")));
    }
    return h("div", { class: "room-actions" }, buttons);
  };

  drawParts(el, [
    ["title", key(variantName), () => h("h2", { class: "room-title" }, t("waiting_room"), h("span", { class: "room-variant" }, ` · ${variantName}`))],
    [
      "stake",
      key(table.stake, table.hands_total, table.turn_seconds, table.claim_seconds),
      () =>
        h(
          "p",
          { class: "room-stake" },
          tn("stake_line", table.hands_total, { stake: table.stake, hands: table.hands_total, turn: table.turn_seconds, claim: table.claim_seconds }),
        ),
    ],
    ["chairs", key(seats, me, table.dealer_position, table.owner_id, pending), drawChairs],
    ["actions", key(me, mine ? mine.ready : null, empty > 0, fills, pending, table.quick_play), drawActions],
    [
      "rating",
      key(rating, table.hints, table.status, isOwner, seats.some((s) => s.is_bot)),
      () => ratingNote(table, seats, isOwner, rerender),
    ],
    ["countdown", "", () => h("p", { class: "room-note", id: "mj-ready-countdown" })],
  ]);
  const countdown = el.querySelector("#mj-ready-countdown");
  countdown.textContent = roomCountdownText(table, readyMsLeft);
  countdown.dataset.quick = table.quick_play ? "1" : "0";
  return countdown;
}
