// What the hand-end dialog and the name plates count for each chair.
//
// A table with a stake counts wallet units: the hand's settled `hand.deltas` (what was booked),
// and the match's `table.scores`.  A score-only table (stake 0: tournaments) moves no unit, so
// the units are all 0: it counts the hand's points instead (`view.result.deltas`, per wind, as
// the tournament's standings do), and the server keeps `table.scores` in points there.

/** Is this a score-only table (stake 0: hands are scored, no wallet moves)? */
export function scoreOnly(frame) {
  return Number(frame.table.stake) === 0;
}

/** The hand's points for chair `chair` (null before the hand has a result). */
function points(frame, chair) {
  const hand = frame.hand;
  const result = hand?.view?.result;
  if (!result?.deltas) return null;
  return result.deltas[hand.winds[String(chair)]] ?? 0;
}

/** What a name plate shows for the finished hand: units booked, or points on a score-only
 *  table; null while there is nothing to show. */
export function plateDelta(frame, chair) {
  const hand = frame.hand;
  if (!hand) return null;
  if (scoreOnly(frame)) return hand.status === "finished" ? points(frame, chair) : null;
  return hand.deltas ? (hand.deltas[String(chair)] ?? null) : null;
}

/** Per chair 0..3, what the hand-end dialog shows: the settled units (or, until settled, the
 *  engine's points × stake); on a score-only table the points. */
export function chairDeltas(frame) {
  const hand = frame.hand;
  const out = {};
  for (let chair = 0; chair < 4; chair++) {
    if (scoreOnly(frame)) out[chair] = points(frame, chair) ?? 0;
    else if (hand.deltas && hand.deltas[String(chair)] !== undefined) out[chair] = hand.deltas[String(chair)];
    else out[chair] = (points(frame, chair) ?? 0) * frame.table.stake;
  }
  return out;
}
