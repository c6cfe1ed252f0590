// The phone layout's choices (docs/ui.md, "Phone layout"): which layout the viewport gets, and
// the per-player "一触出牌 / Discard with one tap" option.
//
// A layout class, not only a smaller scale: on a phone the own hand, the prompt and the claim
// buttons leave the scaled felt for a dock fixed at the bottom of the window (full-size tiles at
// thumb reach); the dialogs leave it for a fixed layer (readable text).  table.js moves them.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** A phone: narrow (portrait) or low (landscape). */
export const PHONE_QUERY = "(max-width: 700px), (max-height: 500px)";

/** localStorage key of the one-tap option: "1" on, anything else off (the per-account settings may take it over). */
export const ONE_TAP_KEY = "caishen.table.oneTapDiscard";

/** "portrait" | "landscape" on a phone, else null (the desktop felt). */
export function phoneLayout() {
  if (!window.matchMedia(PHONE_QUERY).matches) return null;
  return window.innerWidth > window.innerHeight ? "landscape" : "portrait";
}

/** A touch screen, whatever its size: a first tap selects there too. */
export function coarsePointer() {
  return window.matchMedia("(pointer: coarse)").matches;
}

export function oneTapOn() {
  try {
    return window.localStorage.getItem(ONE_TAP_KEY) === "1";
  } catch {
    return false; // storage refused (private mode): the default, tap to select
  }
}

function setOneTap(on) {
  try {
    window.localStorage.setItem(ONE_TAP_KEY, on ? "1" : "0");
  } catch {
    // not stored: the choice lasts for this page only
  }
}

/** The one-tap switch; `onChange(on)` after the player flips it. */
export function oneTapToggle(onChange) {
  const input = h("input", { type: "checkbox", id: "mj-one-tap" });
  input.checked = oneTapOn();
  input.addEventListener("change", () => {
    setOneTap(input.checked);
    onChange(input.checked);
  });
  return h("label", { class: "one-tap", title: t("one_tap_title") }, input, h("span", {}, t("one_tap")));
}
