// Around the felt: the table's finished hands with their replays, the owner's
// invite link of a private table, and the note that the ready countdown unseated this player.
// See docs/ui.md, "Around the table".

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** Add a hand that just finished to the server-rendered list (once per hand). */
export function noteFinishedHand(frame) {
  const hand = frame.hand;
  const list = document.getElementById("table-hand-list");
  if (!list || !hand || hand.status !== "finished" || !hand.id) return;
  if (list.querySelector(`li[data-hand="${hand.id}"]`)) return;
  const item = h(
    "li",
    { dataset: { hand: hand.id } },
    h("a", { href: `/hands/${hand.id}/replay/` }, t("hand_list_item", { n: hand.number })),
  );
  // In hand order: the list is server-rendered by number, a live hand is always the latest.
  list.append(item);
  const empty = document.getElementById("table-hands-empty");
  if (empty) empty.hidden = true;
}

/** The owner's "copy invite link" control: the link in a read-only field and a copy button. */
export function inviteControl(url) {
  if (!url) return null;
  const field = h("input", { type: "text", readonly: true, value: url, id: "mj-invite-url", class: "invite-url", "aria-label": t("invite_link") });
  const said = h("span", { class: "invite-said", id: "mj-invite-said", role: "status" });
  const copy = async () => {
    field.select();
    let ok = false;
    try {
      await navigator.clipboard.writeText(url);
      ok = true;
    } catch {
      ok = document.execCommand?.("copy") ?? false; // an insecure origin has no clipboard API
    }
    said.textContent = ok ? t("invite_copied") : t("invite_copy_by_hand");
  };
  return h(
    "span",
    { class: "invite", id: "mj-invite" },
    h("button", { type: "button", class: "btn small", id: "mj-invite-copy", onclick: copy }, t("invite_copy")),
    field,
    said,
  );
}

/**
 * Was I unseated by the ready countdown?  Between two frames of the waiting room: I sat, not
 * ready, while the countdown ran, and the next frame has me in no chair though I did not stand.
 */
export function unseatedByCountdown(prev, next, me, standing) {
  if (me === null || standing || !prev || !next) return false;
  if (prev.table?.status !== "waiting" || !prev.table?.ready_deadline) return false;
  const before = prev.seats?.find((s) => s.user_id === me);
  const after = next.seats?.find((s) => s.user_id === me);
  return Boolean(before && !before.ready && !after);
}

/** Say it in the page's note (it stays until the player sits again). */
export function showUnseated(isOwner) {
  const el = document.getElementById("mj-notice");
  if (!el) return;
  el.textContent = isOwner ? t("unseated_owner") : t("unseated");
  el.hidden = false;
}

export function hideNotice() {
  const el = document.getElementById("mj-notice");
  if (el) el.hidden = true;
}
