// The player's table settings: the gear panel, sounds, quick phrases, the
// leave control and the discard confirmation.  Settings live on the account
// (/api/table-settings/, games/web/table_settings_api.py): the same in every browser.  Auto-pass,
// auto-win and 摸切 are taken by the server (docs/ui.md); the page only saves them.
import { clear, h } from "./dom.js";
import { LANG, t } from "./i18n.js";
import { apiGet } from "./net.js";
import { ONE_TAP_KEY } from "./phone.js";
import { tileName } from "./tiles.js";

export const SETTINGS = ["sound", "auto_pass_claims", "auto_win", "tsumogiri", "confirm_discard", "one_tap_discard"];
export const EMOTES = ["hello", "hurry", "well_played", "thanks", "sorry", "good_luck", "nice_tile", "oops", "again", "bye"];
const BUBBLE_MS = 4000;

async function apiPatch(path, body) {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  const res = await fetch(path, {
    method: "PATCH",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": m ? decodeURIComponent(m[1]) : "" },
    body: JSON.stringify(body),
  });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new Error((data && data.detail) || `${res.status}`);
  return data;
}

/** Short sounds made in the browser (WebAudio oscillators): nothing downloaded. */
const TONES = { draw: [660, 0.06], discard: [330, 0.08], claim: [520, 0.15], win: [880, 0.35], turn: [740, 0.1] };
let audio = null;
export function beep(kind) {
  const [freq, secs] = TONES[kind] || TONES.turn;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + secs);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + secs);
  } catch {
    // no audio here: silence
  }
  document.documentElement.dataset.lastSound = kind; // what was played (the browser tests read it)
}

export class TablePrefs {
  /** `signedIn`: whether there is an account; `onChange(settings)` after a load or a save. */
  constructor({ signedIn, onChange }) {
    this.values = Object.fromEntries(SETTINGS.map((k) => [k, false]));
    this.signedIn = signedIn;
    this.onChange = onChange;
    this.panel = h("div", { class: "overlay prefs", id: "mj-prefs", hidden: true });
    this.gear = h(
      "button",
      { type: "button", class: "btn secondary mj-gear", id: "mj-gear", title: t("prefs_title"), "aria-label": t("prefs_title"), hidden: !signedIn, onclick: () => this.open() },
      "⚙",
    );
    // The panel opens on the account's settings, never on the defaults of a page whose load has
    // not come back yet (saving those would overwrite the account's).
    this.loading = signedIn ? this.load() : Promise.resolve();
  }

  async load() {
    try {
      Object.assign(this.values, await apiGet("/api/table-settings/"));
      // The account's "on" starts the device's one-tap switch; an "off" leaves the device's own
      // choice (phone.js) alone until the player saves the panel.
      if (this.values.one_tap_discard) this.applyOneTap();
      this.onChange(this.values);
    } catch {
      // the defaults (all off) stay
    }
  }

  /** One setting changed elsewhere on the page (the dock's one-tap switch): saved to the account. */
  async saveOne(key, on) {
    this.values[key] = on;
    if (!this.signedIn) return;
    try {
      Object.assign(this.values, await apiPatch("/api/table-settings/", { [key]: on }));
    } catch {
      // not saved: the device keeps the choice (phone.js) and the panel shows the account's
    }
  }

  applyOneTap() {
    try {
      window.localStorage.setItem(ONE_TAP_KEY, this.values.one_tap_discard ? "1" : "0");
    } catch {
      // storage refused: the per-page default
    }
  }

  async open() {
    await this.loading;
    const boxes = SETTINGS.map((key) =>
      h(
        "label",
        { class: "prefs-row" },
        h("input", { type: "checkbox", name: key, id: `mj-pref-${key}`, checked: this.values[key] }),
        h("span", {}, t(`pref_${key}`)),
      ),
    );
    const status = h("p", { class: "muted", id: "mj-prefs-status" });
    const save = async () => {
      const body = Object.fromEntries(SETTINGS.map((k) => [k, this.panel.querySelector(`[name=${k}]`).checked]));
      try {
        Object.assign(this.values, await apiPatch("/api/table-settings/", body));
        this.applyOneTap();
        this.onChange(this.values);
        this.close();
      } catch (err) {
        status.textContent = t("refused", { reason: err.message });
      }
    };
    clear(
      this.panel,
      h(
        "div",
        { class: "dialog", role: "dialog", "aria-modal": "true" },
        h("h2", {}, t("prefs_title")),
        ...boxes,
        status,
        h(
          "div",
          { class: "dialog-buttons" },
          h("button", { type: "button", class: "btn primary", id: "mj-prefs-save", onclick: save }, t("save")),
          h("button", { type: "button", class: "btn secondary", onclick: () => this.close() }, t("cancel")),
        ),
      ),
    );
    this.panel.hidden = false;
  }

  close() {
    this.panel.hidden = true;
    clear(this.panel);
  }

  /** Sounds for a frame's events, when switched on: `you` is the reader's wind, or null. */
  play(events, youWind, yourTurnNow) {
    if (!this.values.sound) return;
    for (const e of events || []) {
      if (e.kind === "win" || e.kind === "hand_end") return beep("win");
      if (["chow", "pung", "kong"].includes(e.kind)) return beep("claim");
      if (e.kind === "discard") return beep("discard");
      if (e.kind === "draw" && e.seat === youWind) return beep("draw");
    }
    if (yourTurnNow) beep("turn");
  }
}

/** A yes/no question in the overlay `el`; resolves true on yes. */
export function ask(el, { title, text, yes, id }) {
  return new Promise((resolve) => {
    const done = (ok) => {
      el.hidden = true;
      clear(el);
      resolve(ok);
    };
    clear(
      el,
      h(
        "div",
        { class: "dialog", role: "dialog", "aria-modal": "true", id },
        h("h2", {}, title),
        text ? h("p", { class: "ask-text" }, text) : null,
        h(
          "div",
          { class: "dialog-buttons" },
          h("button", { type: "button", class: "btn primary", dataset: { cmd: "ask-yes" }, onclick: () => done(true) }, yes),
          h("button", { type: "button", class: "btn secondary", dataset: { cmd: "ask-no" }, onclick: () => done(false) }, t("cancel")),
        ),
      ),
    );
    el.hidden = false;
    el.querySelector("[data-cmd=ask-yes]").focus();
  });
}

/** "打出 5万？": the discard confirmation's question. */
export function discardQuestion(tile) {
  return t("confirm_discard_q", { tile: tileName(tile, LANG) });
}

/** The rule set's escape rule, said before leaving a running match. */
export function escapeRule(escapeBases, stake) {
  if (escapeBases > 0) return t("leave_rule_penalty", { n: escapeBases, amount: escapeBases * stake });
  return t("leave_rule_bot");
}

/** The quick-phrase picker: a button that opens the fixed list; `send(code)` on a choice. */
export function emotePicker(send) {
  const list = h("div", { class: "emote-list", id: "mj-emote-list", hidden: true });
  for (const code of EMOTES) {
    list.append(
      h(
        "button",
        {
          type: "button",
          class: "btn secondary emote-btn",
          dataset: { emote: code },
          onclick: () => {
            list.hidden = true;
            send(code);
          },
        },
        t(`emote_${code}`),
      ),
    );
  }
  const button = h("button", { type: "button", class: "btn secondary", id: "mj-emote", title: t("emote_title"), onclick: () => (list.hidden = !list.hidden) }, "💬");
  return h("div", { class: "mj-emotes", id: "mj-emotes" }, button, list);
}

/** Show `code` as a bubble by chair `position`'s name plate for a few seconds. */
export function showBubble(stage, position, code) {
  // On the felt, not in the plate: a plate is rebuilt by the next frame, the bubble must stay.
  const plate = stage.querySelector(`.plate-inner[data-chair="${position}"]`);
  const bubble = h("div", { class: "emote-bubble", dataset: { chair: String(position), emote: code }, role: "status" }, t(`emote_${code}`));
  if (plate) {
    const r = plate.getBoundingClientRect();
    const s = stage.getBoundingClientRect();
    const scale = s.width / (stage.offsetWidth || 1) || 1;
    bubble.style.left = `${(r.left - s.left) / scale}px`;
    bubble.style.top = `${Math.max(0, (r.top - s.top) / scale - 34)}px`;
  }
  stage.append(bubble);
  setTimeout(() => bubble.remove(), BUBBLE_MS);
}
