// Times in the reader's own time zone: every <time data-local> the server rendered in its zone
// ("2026-12-06 14:56 (UTC+8)", accounts_tags.when) is written again in this browser's zone, with
// the zone said the same way.  Loaded on every page (base.html).

const pad = (n) => String(n).padStart(2, "0");

/** "UTC+8", "UTC−3:30", "UTC": the reader's offset at `date`. */
export function zoneLabel(date) {
  const minutes = -date.getTimezoneOffset();
  if (minutes === 0) return "UTC";
  const sign = minutes > 0 ? "+" : "−";
  const hours = Math.floor(Math.abs(minutes) / 60);
  const rest = Math.abs(minutes) % 60;
  return `UTC${sign}${hours}${rest ? `:${pad(rest)}` : ""}`;
}

export function localTime(date, seconds = false) {
  const day = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}${seconds ? `:${pad(date.getSeconds())}` : ""}`;
  return `${day} ${time} (${zoneLabel(date)})`;
}

for (const el of document.querySelectorAll("time[data-local]")) {
  const date = new Date(el.getAttribute("datetime"));
  if (!Number.isNaN(date.getTime())) el.textContent = localTime(date, el.dataset.local === "seconds");
}
