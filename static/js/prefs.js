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

/** Short sounds made in the browser (WebAudio oscillators): nothing downloaded.  Each is a
 * list of notes [frequency Hz, start s, length s]: a claim two quick notes, the win a rising
 * arpeggio, your turn a soft chime. */
const TONES = {
  draw: [[660, 0, 0.06]],
  discard: [[330, 0, 0.08]],
  claim: [[523, 0, 0.1], [784, 0.09, 0.16]],
  win: [[523, 0, 0.14], [659, 0.12, 0.14], [784, 0.24, 0.14], [1047, 0.36, 0.4]],
  turn: [[740, 0, 0.1], [988, 0.08, 0.14]],
};
// Sounds of a page without an account (a watcher): kept on the device, "0" muted.
export const SOUND_KEY = "caishen.table.sound";
let audio = null;

function audioContext() {
  audio = audio || new (window.AudioContext || window.webkitAudioContext)();
  return audio;
}

export function beep(kind) {
  try {
    const ctx = audioContext();
    for (const [freq, at, secs] of TONES[kind] || TONES.turn) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      const start = ctx.currentTime + at;
      osc.type = "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, ctx.currentTime);
      gain.gain.setValueAtTime(0.09, start);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + secs);
      osc.connect(gain).connect(ctx.destination);
      osc.start(start);
      osc.stop(start + secs + 0.02);
    }
  } catch {
    // no audio here: silence
  }
  document.documentElement.dataset.lastSound = kind; // what was played (the browser tests read it)
}

// A browser starts audio only after the reader has touched the page: the first press wakes it.
function wakeAudioOnFirstPress() {
  const wake = () => {
    try {
      const ctx = audioContext();
      if (ctx.state === "suspended") ctx.resume();
    } catch {
      // no audio here
    }
    window.removeEventListener("pointerdown", wake, true);
    window.removeEventListener("keydown", wake, true);
  };
  window.addEventListener("pointerdown", wake, true);
  window.addEventListener("keydown", wake, true);
}

// The mute button's icon: a speaker, with waves (sounds on) or a cross (muted).  Drawn, not an
// emoji: emoji fonts are missing on many systems.
const SPEAKER = '<path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/>';
const WAVES = '<path d="M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/>';
const CROSS = '<path d="M15.5 9.5l5 5M20.5 9.5l-5 5" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/>';
function speakerIcon(on) {
  return `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">${SPEAKER}${on ? WAVES : CROSS}</svg>`;
}

function deviceSound() {
  try {
    return window.localStorage.getItem(SOUND_KEY) !== "0";
  } catch {
    return true;
  }
}

export class TablePrefs {
  /** `signedIn`: whether there is an account; `onChange(settings)` after a load or a save. */
  constructor({ signedIn, onChange }) {
    // The page's defaults until the account's settings come: all off but the sounds (a watcher's
    // sounds are the device's choice).
    this.values = Object.fromEntries(SETTINGS.map((k) => [k, k === "sound" ? deviceSound() : false]));
    this.signedIn = signedIn;
    this.onChange = onChange;
    // One tap mutes (or unmutes) the table's sounds: the account's `sound`, else the device's.
    this.soundButton = h("button", { type: "button", class: "btn secondary mj-sound", id: "mj-sound", onclick: () => this.toggleSound() });
    this.renderSoundButton();
    wakeAudioOnFirstPress();
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
      this.renderSoundButton();
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

  renderSoundButton() {
    const on = Boolean(this.values.sound);
    const label = on ? t("sound_mute") : t("sound_unmute");
    this.soundButton.innerHTML = speakerIcon(on);
    this.soundButton.title = label;
    this.soundButton.setAttribute("aria-label", label);
    this.soundButton.setAttribute("aria-pressed", on ? "false" : "true"); // pressed: muted
    this.soundButton.classList.toggle("muted", !on);
  }

  async toggleSound() {
    const on = !this.values.sound;
    try {
      window.localStorage.setItem(SOUND_KEY, on ? "1" : "0");
    } catch {
      // storage refused: this page keeps the choice
    }
    this.values.sound = on;
    this.renderSoundButton();
    await this.saveOne("sound", on);
    this.renderSoundButton();
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
        this.renderSoundButton();
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

  /** Sounds for a frame's events, unless muted: `you` is the reader's wind, or null;
   * `yourTurnNow`: a decision of yours (a discard, or a claim offered) has just opened. */
  play(events, youWind, yourTurnNow) {
    if (!this.values.sound) return;
    for (const e of events || []) {
      if (e.kind === "win") return beep("win");
      if (["chow", "pung", "kong", "add_kong", "ready", "rob_gold", "you"].includes(e.kind)) return beep("claim");
    }
    if (yourTurnNow) return beep("turn");
    for (const e of events || []) {
      if (e.kind === "discard") return beep("discard");
      if (e.kind === "draw" && e.seat === youWind) return beep("draw");
    }
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
