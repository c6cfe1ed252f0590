// The lobby keeps itself current: every few seconds, while the tab is visible, it
// fetches its own address again and swaps in the fresh table lists ("Your tables", "Public
// tables").  Polling rather than a socket: the lists change seldom, no socket group exists for
// the lobby, and a page fetch carries the filters, the reader's language and every process's
// tables in the scaled mode without a new message type.  docs/ui.md, "The lobby".

const PERIOD_MS = Number(document.body.dataset.lobbyPollMs || 5000);
const PARTS = ["[data-live=my-tables]", "[data-live=public-tables]"];

async function refresh() {
  if (document.hidden) return;
  let html;
  try {
    const res = await fetch(location.href, { credentials: "same-origin", headers: { "X-Requested-With": "lobby-poll" } });
    if (!res.ok) return;
    html = await res.text();
  } catch {
    return; // offline for a moment: the next round tries again
  }
  const fresh = new DOMParser().parseFromString(html, "text/html");
  for (const sel of PARTS) {
    const now = document.querySelector(sel);
    const next = fresh.querySelector(sel);
    if (now && next && now.innerHTML !== next.innerHTML) now.replaceWith(document.importNode(next, true));
  }
  document.querySelector("[data-live=public-tables]")?.setAttribute("data-refreshed", String(Date.now()));
}

setInterval(refresh, PERIOD_MS);
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) refresh();
});
