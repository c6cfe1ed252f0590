// The table's connections: the WebSocket of docs/protocol.md and the lobby's REST calls.

const HEARTBEAT_MS = 10_000;
const MAX_BACKOFF_MS = 10_000;

/**
 * One socket per table page, reconnecting with backoff.
 *
 * Tracks the hand's `seq`: an update that skips one asks for a resync, an old one is dropped.
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
    this.stopped = false;
    this.retryTimer = null;
    this.heartbeat = setInterval(() => this.send({ type: "ping", seq: this.seq }), HEARTBEAT_MS);
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    return `${scheme}//${location.host}${this.path}`;
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
      this.track(frame);
      this.onFrame(frame);
    } else if (frame.type === "update") {
      const hand = frame.hand;
      const seq = frame.seq ?? hand?.seq;
      if (hand && hand.id === this.handId && this.seq !== null) {
        if (seq <= this.seq) return; // already seen (a snapshot overtook it)
        if (seq > this.seq + 1) this.send({ type: "resync" }); // a gap: the snapshot will follow
      }
      this.track(frame);
      this.onFrame(frame);
    } else {
      this.onMessage(frame);
    }
  }

  track(frame) {
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
