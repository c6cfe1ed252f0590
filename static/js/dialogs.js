// Overlays on the felt: the stake confirmation, the hand-end result, transient messages.

import { chairOfWind, meldEl, seatName, styledTile, tileStyle } from "./board.js";
import { clear, h, signed, stableKey } from "./dom.js";
import { LANG, has, t, tn, windName } from "./i18n.js";
import { parseTiles, sortTiles, tileEl } from "./tiles.js";
import { chairDeltas, scoreOnly } from "./scores.js";
import { itemDetail, itemLabel, itemValue, seatWord, visible } from "./breakdown.js";
import { answerLabel, choiceLabel, questionExplain, questionLabel } from "./variant.js";

/** Ask the player to confirm the table's stake; resolves true (confirm) or false. */
export function confirmStake(el, table, minBalance = null) {
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
        { class: "dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "mj-confirm-title" },
        h("h2", { id: "mj-confirm-title" }, t("confirm_stake_title")),
        h("p", { class: "stake-big" }, `${t("stake")} `, h("strong", { id: "mj-confirm-stake" }, String(table.stake))),
        h("p", {}, tn("confirm_stake", table.hands_total, { stake: table.stake, hands: table.hands_total })),
        minBalance ? h("p", { class: "muted" }, t("min_balance", { min: minBalance })) : null,
        h(
          "div",
          { class: "dialog-buttons" },
          h("button", { type: "button", class: "btn primary", dataset: { cmd: "confirm-ready" }, onclick: () => done(true) }, t("confirm")),
          h("button", { type: "button", class: "btn secondary", dataset: { cmd: "cancel-ready" }, onclick: () => done(false) }, t("cancel")),
        ),
      ),
    );
    el.hidden = false;
    el.querySelector("[data-cmd=confirm-ready]").focus();
  });
}

/** Show a message over the felt for a few seconds. */
export function toast(el, message, kind = "info", ms = 4000) {
  const item = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, message);
  el.append(item);
  setTimeout(() => item.classList.add("fade"), ms - 400);
  setTimeout(() => item.remove(), ms);
}

function seatLabel(frame, wind) {
  const chair = chairOfWind(frame.hand, wind);
  return `${seatName(frame.seats[chair])} (${windName(wind)})`;
}

function resultLine(frame, result) {
  const hand = frame.hand;
  if (result?.win_kind === "false_win") {
    // 诈胡 (漳州: a wrong 抢暗杠 guess): the claimant is the one who pays.
    const item = (result.breakdown || []).find((b) => b.name === "false_win");
    const payer = Object.entries(item?.payments || {}).find(([, v]) => v < 0)?.[0];
    return payer ? t("result_false_win", { name: seatLabel(frame, payer) }) : t("win_kind_false_win");
  }
  // A duplicate deal still played at another table: a watcher learns only that it is over.
  if (!result && hand.withheld) return t("result_withheld");
  if (!result || result.status !== "win") return t("result_draw");
  const name = seatLabel(frame, result.winner);
  const kind = result.win_kind && has(`win_kind_${result.win_kind}`) ? ` · ${t(`win_kind_${result.win_kind}`)}` : "";
  if (result.self_drawn) return t("result_self", { name }) + kind;
  const line = t("result_win", { name }) + kind;
  if (result.from) {
    const fromChair = chairOfWind(hand, result.from);
    return `${line} · ${t("result_from", { from: seatName(frame.seats[fromChair]) })}`;
  }
  return line;
}

/** Per-seat payments of a breakdown item, E S W N: "东 −8" / "East −8". */
function paymentsEl(payments) {
  if (!payments) return "";
  return h(
    "span",
    { class: "bd-payments" },
    "ESWN"
      .split("")
      .filter((w) => payments[w] !== undefined)
      .map((w) => {
        const v = payments[w];
        return h("span", { class: `pay ${v > 0 ? "plus" : v < 0 ? "minus" : "zero"}`, dataset: { seat: w, value: v } }, `${seatWord(w)} ${signed(v)}`);
      }),
  );
}

/** Mark a tile element as the hand's winning tile (a ring, and its name for screen readers). */
function markWinning(el) {
  el.classList.add("win-tile");
  el.dataset.winTile = "1";
  el.setAttribute("aria-label", `${t("winning_tile")}: ${el.dataset.tile || ""}`);
  el.title = t("winning_tile");
  return el;
}

// (re-exported: what each chair's row shows lives in scores.js with the plates' figure)
export { chairDeltas };

/**
 * The hand-end dialog.  `wallet` is the balance after settlement (null until known), `nextEl`
 * receives the "next hand" line (updated by the caller's clock).
 */
export function renderHandEnd(el, frame, { wallet, onClose }) {
  const hand = frame.hand;
  // Drawn again only when what it shows changed: frames keep coming while it is open (the next
  // hand's countdown, a seat's presence), and a button or the details' summary rebuilt between
  // a press and its release loses the click.  The clock line is ticked in place (table.js).
  const table = { ...frame.table, pre_hand: frame.table.pre_hand ? { ...frame.table.pre_hand, deadline_in_ms: null } : null };
  const key = stableKey([{ ...hand, deadline: null, deadline_in_ms: null }, table, frame.seats, frame.you, wallet]);
  const open = el.querySelector(":scope > .handend-dialog");
  if (open && !el.hidden && el.dataset.key === key) {
    return { next: open.querySelector("#mj-next-hand"), finished: open.dataset.finished === "1" };
  }
  el.dataset.key = key;
  const view = hand.view;
  const result = view.result;
  const deltas = chairDeltas(frame);
  const style = tileStyle(view);
  const winnerWind = result?.status === "win" ? result.winner : null;

  /** A seat's revealed hand, melds and flowers, tiles `w` px wide; the winning tile ringed. */
  const handOf = (wind, w) => {
    const player = view.players.find((p) => p.seat === wind);
    const revealed = view.revealed ? view.revealed[wind] : player?.hand;
    const tiles = revealed ? sortTiles(parseTiles(revealed), style.wilds) : [];
    // The winning tile is marked in the winner's hand (its last copy: the one drawn or claimed);
    // a claimed discard not among the revealed tiles is shown after them, marked.
    const winTile = wind === winnerWind ? result?.win_tile : null;
    const winAt = winTile ? tiles.lastIndexOf(winTile) : -1;
    const handTiles = tiles.map((c, i) => {
      const tile = styledTile(c, style, { w });
      if (i === winAt) markWinning(tile);
      return tile;
    });
    if (winTile && winAt < 0) handTiles.push(markWinning(styledTile(winTile, style, { w })));
    const melds = (player?.melds || []).map((m) => h("span", { class: "he-meld" }, meldEl(m, wind, w, false, style)));
    const flowers = parseTiles(player?.flowers || "");
    const count = handTiles.length + (player?.melds || []).length * 3 + flowers.length * 0.8;
    return {
      count,
      parts: [handTiles, melds, flowers.length ? h("span", { class: "he-flowers" }, flowers.map((c) => tileEl(c, { w: Math.round(w * 0.8), lang: LANG }))) : null],
    };
  };

  const multi = frame.table.hands_total > 1;
  const rows = [];
  for (let i = 0; i < 4; i++) {
    const chair = frame.you === null ? i : (frame.you + i) % 4;
    const wind = hand.winds[String(chair)];
    const d = deltas[chair];
    const total = frame.table.scores?.[String(chair)];
    rows.push(
      h(
        "tr",
        { class: `${wind === winnerWind ? "winner" : ""}${chair === frame.you ? " you" : ""}`, dataset: { chair, delta: d } },
        h("td", { class: "he-wind" }, windName(wind)),
        h("td", { class: "he-name" }, seatName(frame.seats[chair]), chair === frame.you ? ` · ${t("you")}` : ""),
        h("td", { class: "he-tiles" }, handOf(wind, 22).parts),
        h("td", { class: `num he-delta ${d > 0 ? "plus" : d < 0 ? "minus" : "zero"}` }, signed(d)),
        multi ? h("td", { class: "num he-total" }, total === undefined ? "" : signed(total)) : null,
      ),
    );
  }

  // The winning hand, large: as wide as the screen allows (at most 48 px a tile, at least 26).
  let winning = null;
  if (winnerWind) {
    const probe = handOf(winnerWind, 40);
    const room = Math.min(window.innerWidth, 900) - 72;
    const w = Math.max(26, Math.min(48, Math.floor(room / Math.max(probe.count + 1, 1))));
    winning = h("div", { class: "he-winning", id: "mj-winning-hand", dataset: { tileWidth: w } }, handOf(winnerWind, w).parts);
  }

  // Each line rendered from its data in the reader's language (breakdown.js); a line worth
  // nothing that moves nothing is left out unless it explains the hand.
  const breakdown = (result?.breakdown || []).filter(visible);
  // The patterns in player words with their values (番 / 倍 / 分); the formulas and the
  // per-seat payments behind "details".
  const patterns = breakdown.length
    ? h(
        "ul",
        { class: "he-patterns", id: "mj-patterns" },
        breakdown.map((b) => h("li", { dataset: { name: b.name } }, h("span", { class: "pat-name" }, itemLabel(b)), h("span", { class: "pat-value" }, itemValue(b)))),
      )
    : null;
  const withPayments = breakdown.some((b) => b.payments && Object.keys(b.payments).length);
  const items = breakdown.map((b) =>
    h(
      "tr",
      { dataset: { name: b.name, code: b.code || b.name } },
      h("td", { class: "bd-label" }, itemLabel(b)),
      h("td", { class: "num bd-value" }, itemValue(b)),
      h("td", { class: "bd-detail" }, itemDetail(b)),
      withPayments ? h("td", { class: "bd-pay" }, paymentsEl(b.payments)) : null,
    ),
  );

  const myDelta = frame.you !== null ? deltas[frame.you] : null;
  const next = h("p", { class: "he-next", id: "mj-next-hand" });
  const finished = frame.table.status === "finished" || frame.table.hands_played >= frame.table.hands_total;
  const details = h(
    "details",
    { class: "he-details", id: "mj-details", open: detailsOpen, ontoggle: (ev) => (detailsOpen = ev.target.open) },
    h("summary", {}, t("result_details")),
    h(
      "div",
      { class: "breakdown-wrap", id: "mj-breakdown-wrap", tabindex: "0" },
      h(
        "table",
        { class: "breakdown", id: "mj-breakdown" },
        h(
          "thead",
          {},
          h("tr", {}, h("th", {}, t("item")), h("th", { class: "num" }, t("value")), h("th", {}, t("detail")), withPayments ? h("th", {}, t("payments")) : null),
        ),
        h("tbody", {}, items),
      ),
    ),
  );
  clear(
    el,
    h(
      "div",
      {
        class: "dialog handend-dialog",
        role: "dialog",
        "aria-labelledby": "mj-handend-title",
        dataset: { hand: hand.id, myDelta: myDelta ?? "", finished: finished ? "1" : "0" },
      },
      h("button", { type: "button", class: "dialog-close", "aria-label": t("close"), title: t("close"), onclick: onClose }, "×"),
      h("h2", { id: "mj-handend-title" }, `${t("hand_end")} · ${t("hand_no", { n: hand.number, total: frame.table.hands_total })}`),
      h("p", { class: "he-result", id: "mj-result" }, resultLine(frame, result)),
      winning,
      patterns,
      myDelta !== null
        ? h(
            "p",
            { class: "he-mine" },
            `${t(scoreOnly(frame) ? "hand_points" : "deltas")}: `,
            h("strong", { id: "mj-my-delta", class: myDelta > 0 ? "plus" : myDelta < 0 ? "minus" : "zero" }, signed(myDelta)),
            wallet !== null && !scoreOnly(frame) ? h("span", { id: "mj-wallet-after", dataset: { balance: wallet } }, ` · ${t("wallet_after", { balance: wallet })}`) : null,
          )
        : null,
      h(
        "table",
        { class: "he-hands" },
        h("thead", {}, h("tr", {}, h("th", { colspan: 3 }), h("th", { class: "num" }, t("this_hand")), multi ? h("th", { class: "num" }, t("match_score")) : null)),
        h("tbody", {}, rows),
      ),
      scoreOnly(frame) ? h("p", { class: "he-score-only muted", id: "mj-score-only" }, t("score_only_note")) : null,
      details,
      h(
        "p",
        { class: "he-links" },
        // The hand's replay (牌谱); a duplicate deal still played elsewhere says so on that page.
        h("a", { id: "mj-replay-link", href: `/hands/${hand.id}/replay/`, target: "_blank", rel: "noopener" }, t("replay_link")),
        " · ",
        fairLink(hand),
      ),
      next,
      finished ? h("p", {}, h("a", { class: "btn", href: "/tables/" }, t("back_to_lobby"))) : null,
    ),
  );
  el.hidden = false;
  return { next, finished };
}

// Whether the reader opened the result's details: kept for the next hands of the page.
let detailsOpen = false;

/** "Provably fair": the hand's verification (its seed against the wall commitment made before
 *  the deal), opened in a new tab once the hand is over; the hex itself is shown there. */
export function fairLink(hand) {
  if (hand.status !== "finished" || !hand.seed) {
    return h("span", { class: "fair", id: "mj-fair", title: t("fair_pending") }, t("fair_link"));
  }
  return h("a", { class: "fair", id: "mj-fair", href: `/api/hands/${hand.id}/verify/`, target: "_blank", rel: "noopener", title: t("fair_help") }, t("fair_link"));
}

/**
 * The open pre-hand question for this player (买底 / 顶底 / 飘): label, explanation, one button per
 * choice (its exact JSON value goes back with `choose`), the countdown, everyone's answers so far.
 * Returns the element the caller's clock writes the seconds left into.
 */
export function renderPreHand(el, frame, { pending, onChoose }) {
  const pre = frame.table.pre_hand;
  const rows = pre.asked.map((chair) => {
    const answer = pre.answers?.[String(chair)];
    const wind = "ESWN"[(chair - (frame.table.dealer_position ?? 0) + 4) % 4];
    return h(
      "li",
      { class: answer === undefined ? "pending" : "answered", dataset: { chair } },
      h("span", { class: "ph-wind" }, windName(wind)),
      h("span", { class: "ph-name" }, seatName(frame.seats[chair]), chair === frame.you ? ` · ${t("you")}` : ""),
      h("span", { class: "ph-answer" }, answer === undefined ? t("pre_hand_pending") : answerLabel(pre, answer)),
    );
  });
  // The same question stays the same element: each answer from another seat updates the list and
  // the buttons in place, so focus on a choice survives and the dialog never blinks out of the page.
  const shown = el.querySelector(".prehand-dialog");
  const choices = JSON.stringify(pre.choices);
  if (shown && shown.dataset.key === pre.key && shown.dataset.choices === choices && !el.hidden) {
    clear(shown.querySelector(".ph-answers"), rows);
    for (const button of shown.querySelectorAll(".ph-choice")) button.disabled = pending;
    return shown.querySelector(".ph-clock");
  }
  const clock = h("span", { class: "ph-clock", id: "mj-prehand-clock" });
  clear(
    el,
    h(
      "div",
      { class: "dialog prehand-dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "mj-prehand-title", dataset: { key: pre.key, choices } },
      h("p", { class: "ph-kicker" }, t("pre_hand")),
      h("h2", { id: "mj-prehand-title" }, questionLabel(pre)),
      h("p", { class: "ph-explain" }, questionExplain(pre)),
      h(
        "div",
        { class: "ph-choices" },
        pre.choices.map((choice) =>
          h(
            "button",
            {
              type: "button",
              class: `btn ph-choice${choice === pre.default ? " default" : ""}${choice === false || choice === 0 ? " secondary" : " primary"}`,
              disabled: pending,
              dataset: { value: JSON.stringify(choice) },
              onclick: () => onChoose(pre.key, choice),
            },
            choiceLabel(pre.key, choice),
          ),
        ),
      ),
      h("p", { class: "ph-timer" }, clock, " · ", t("pre_hand_default", { choice: choiceLabel(pre.key, pre.default) })),
      h("h3", {}, t("pre_hand_answers")),
      h("ul", { class: "ph-answers" }, rows),
    ),
  );
  el.hidden = false;
  return clock;
}
