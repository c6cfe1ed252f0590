// The table's connections: the WebSocket of docs/protocol.md and the lobby's REST calls.

import { applyDelta, chains } from "./delta.js";

const HEARTBEAT_MS = 10_000;
const PROTOCOL = 2; // delta frames with catch-up
const RESYNC_GAP_MS = 1_000; // at most one catch-up request a second while frames do not chain
const MAX_BACKOFF_MS = 10_000;

/**
 * One socket per table page, reconnecting with backoff.
 *
 * Protocol v2: holds the state of the last frame and applies each `delta` to it, so onFrame
 * always gets a whole state (an `update` with the step's events, or a `snapshot`).  A delta that
 * does not chain on the state held (a frame lost or overtaken) asks for the missing frames with
 * `resync` naming the hand and seq held; a reconnect names them in the URL.  Either way the server
 * sends the frames it still has, or a snapshot.
 * Callbacks: onFrame(frame) for every state frame to render, onMessage(frame) for the others
 * (refused, error, pong), onStatus(kind, info) for "connecting" | "open" | "retry" | "closed".
 */
export class TableSocket {
  constructor(path, { onFrame, onMessage, onStatus }) {
    this.path = path;
    this.onFrame = onFrame;
    this.onMessage = onMessage || (() => {});
    this.onStatus = onStatus || (() => {});
    this.ws = null;
    this.attempts = 0;
    this.handId = null;
    this.seq = null;
    this.state = null; // the whole state of the last frame (deltas apply to it)
    this.lastResync = 0;
    this.stopped = false;
    this.retryTimer = null;
    this.heartbeat = setInterval(() => this.send({ type: "ping", seq: this.seq }), HEARTBEAT_MS);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    let query = `v=${PROTOCOL}`;
    if (this.handId !== null && this.seq !== null) query += `&hand=${this.handId}&seq=${this.seq}`; // catch up
    return `${scheme}//${location.host}${this.path}?${query}`;
  }

  connect() {
    clearTimeout(this.retryTimer);
    this.stopped = false;
    this.onStatus("connecting");
    const ws = new WebSocket(this.url());
    this.ws = ws;
    ws.onopen = () => {
      this.attempts = 0;
      this.onStatus("open");
    };
    ws.onmessage = (ev) => {
      if (this.ws !== ws) return; // a socket being replaced: its frames are for the old seat
      let frame;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.receive(frame);
    };
    ws.onclose = (ev) => {
      if (this.ws !== ws) return; // replaced by a newer socket on purpose
      this.ws = null;
      if (this.stopped) return;
      if (ev.code === 4404 || ev.code === 4403) {
        // No such table, or a private one we may not watch: retrying will not help until we sit.
        this.onStatus("closed", { code: ev.code });
        return;
      }
      const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempts) + Math.random() * 300;
      this.attempts += 1;
      this.onStatus("retry", { delay });
      this.retryTimer = setTimeout(() => this.connect(), delay);
    };
  }

  /** Drop the current socket and open a new one (after sitting or standing: a new group). */
  reconnect() {
    const old = this.ws;
    this.ws = null;
    if (old && old.readyState === WebSocket.CONNECTING) old.onopen = () => old.close(1000);
    else if (old) old.close(1000);
    this.connect();
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  receive(frame) {
    if (frame.type === "snapshot") {
      this.hold(frame);
      this.onFrame(frame);
    } else if (frame.type === "update") {
      const hand = frame.hand;
      const seq = frame.seq ?? hand?.seq;
      if (hand && hand.id === this.handId && this.seq !== null && seq <= this.seq) return; // seen
      this.hold(frame);
      this.onFrame(frame);
    } else if (frame.type === "delta") {
      if (frame.hand_id === this.handId && this.seq !== null && frame.seq <= this.seq) return; // seen
      if (!chains(this.state, frame)) {
        this.askForMissing();
        return;
      }
      const state = applyDelta(this.state, frame);
      const update = { ...state, type: "update", seq: frame.seq, events: frame.events || [] };
      this.hold(update);
      this.onFrame(update);
    } else if (frame.type === "table") {
      // The table and seats changed (not the hand): the state keeps its hand.
      if (!this.state) return;
      const update = { ...this.state, type: "update", table: frame.table, seats: frame.seats, you: frame.you, events: [] };
      this.state = update;
      this.onFrame(update);
    } else {
      this.onMessage(frame);
    }
  }

  askForMissing() {
    const now = Date.now();
    if (now - this.lastResync < RESYNC_GAP_MS) return;
    this.lastResync = now;
    this.send({ type: "resync", hand: this.handId, seq: this.seq });
  }

  hold(frame) {
    const { type, events, ...state } = frame;
    this.state = state;
    this.lastResync = 0;
    this.handId = frame.hand ? frame.hand.id : null;
    this.seq = frame.hand ? frame.hand.seq : null;
  }

  act(action) {
    return this.send({ type: "act", hand: this.handId, seq: this.seq, action });
  }
}

function csrfToken() {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (m) return decodeURIComponent(m[1]);
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

function errorText(data, fallback) {
  if (!data) return fallback;
  if (typeof data === "string") return data;
  if (data.detail) return String(data.detail);
  if (data.reason) return String(data.reason);
  const parts = [];
  for (const [k, v] of Object.entries(data)) {
    const msg = Array.isArray(v) ? v.join(" ") : typeof v === "object" ? JSON.stringify(v) : String(v);
    parts.push(k === "non_field_errors" ? msg : `${k}: ${msg}`);
  }
  return parts.join("; ") || fallback;
}

/** POST JSON to the lobby API with the session's CSRF token; resolves to the reply or throws Error(reason). */
export async function apiPost(path, body = {}) {
  const res = await fetch(path, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(body),
  });
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new Error(errorText(data, `${res.status} ${res.statusText}`));
  return data;
}

export async function apiGet(path) {
  const res = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
  return res.json();
}
