// The event page tells a player when their table is ready: it asks GET /api/tournaments/<id>/
// every few seconds (also in a background tab, which browsers slow down but keep running), and
// when `my_table` names a table it did not name before it shows "Your table is ready" with
// Play, plays a short chime and, where the player allowed it, shows a browser notification.
// Permission is asked only when the player presses "Notify me" (browsers want a gesture for
// it, and for sound).  Polling rather than a socket: no socket group exists for an event, and
// one small read every few seconds per open event page is cheap.  docs/tournaments.md.

const root = document.querySelector("[data-event-poll]");

function chime(audio) {
  if (!audio) return;
  try {
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.value = 0.1;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.4);
  } catch {
    // no sound: the page and the notification still say it
  }
}

function showReady(table) {
  let line = document.querySelector(".my-table");
  if (!line) {
    line = document.createElement("p");
    line.className = "my-table";
    root.querySelector("h1").after(line);
  }
  const said = document.createElement("strong");
  said.textContent = root.dataset.readyText;
  const play = document.createElement("a");
  play.className = "button";
  play.href = table.play;
  play.textContent = root.dataset.playText;
  line.replaceChildren(said, " ", play);
  line.dataset.table = String(table.id);
}

if (root) {
  const period = Number(root.dataset.pollMs || 8000);
  let known = root.dataset.myTable || "";
  let audio = null;
  const button = document.querySelector("[data-notify-me]");
  if (button) {
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        audio = audio || new AudioContext(); // created on the gesture, so it may sound later
      } catch {
        audio = null;
      }
      if ("Notification" in window && Notification.permission === "default") await Notification.requestPermission();
      button.textContent = root.dataset.notifyOnText;
      button.disabled = true;
    });
  }
  async function poll() {
    let data;
    try {
      const res = await fetch(root.dataset.eventPoll, { credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!res.ok) return;
      data = await res.json();
    } catch {
      return; // offline for a moment: the next round tries again
    }
    const table = data.my_table;
    const id = table ? String(table.id) : "";
    if (id && id !== known) {
      showReady(table);
      chime(audio);
      if ("Notification" in window && Notification.permission === "granted") {
        new Notification(root.dataset.readyText, { body: root.dataset.eventName, tag: `event-${data.id}` });
      }
    }
    known = id;
  }
  setInterval(poll, period);
}
