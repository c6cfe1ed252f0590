// The 托管 (auto-play) control in the table's header, outside the scaled felt so that it stays
// readable and within reach at any window size.
//
// While our seat is on 托管 (two timeouts, three disconnects, or our own choice) a banner says
// so with a "取消托管 / Stop auto-play" button; otherwise a small "托管" switch puts the seat on
// 托管.  Both send {"type": "autoplay", "on": ...} (docs/protocol.md).  Any own action on the
// felt ends 托管 too (the server applies it, and the seat's flag clears).

import { clear, h } from "./dom.js";
import { t } from "./i18n.js";

/** Render the control into `el` for `frame`; hidden when we hold no seat of a running match. */
export function renderAutoPlay(el, frame, { pending, onSwitch }) {
  const you = frame.you;
  const seat = you === null || you === undefined ? null : frame.seats[you];
  if (!seat || seat.is_bot || seat.left || frame.table.status !== "playing") {
    el.hidden = true;
    delete el.dataset.key;
    clear(el);
    return;
  }
  const on = Boolean(seat.auto_play);
  // Rebuilt only when it changes: a button replaced under the pointer between press and
  // release gets no click, and frames arrive several times a second.
  const key = `${on}:${Boolean(pending)}`;
  if (!el.hidden && el.dataset.key === key) return;
  el.dataset.key = key;
  el.dataset.on = on ? "1" : "0";
  el.classList.toggle("on", on);
  if (on) {
    clear(
      el,
      h("span", { class: "autoplay-note", role: "status" }, t("auto_play_on")),
      h(
        "button",
        { type: "button", class: "btn primary autoplay-stop", dataset: { cmd: "autoplay-off" }, disabled: pending, onclick: () => onSwitch(false) },
        t("auto_play_stop"),
      ),
    );
  } else {
    clear(
      el,
      h(
        "button",
        {
          type: "button",
          class: "btn small autoplay-start",
          dataset: { cmd: "autoplay-on" },
          "aria-pressed": "false",
          title: t("auto_play_start_title"),
          disabled: pending,
          onclick: () => onSwitch(true),
        },
        t("auto_play_start"),
      ),
    );
  }
  el.hidden = false;
}
