// Protocol v2: applying a `delta` frame to the state the client holds (docs/protocol.md).
// The server's copy is games/wire/deltas.py (apply_delta); keep the two alike.

/**
 * The state after `delta`: a new object; `state` and the values it shares are left as they are.
 * A state is what a snapshot carries: {table, seats, you, hand: {..., view: {..., players: [...]}}}.
 */
export function applyDelta(state, delta) {
  const out = { ...state };
  delete out.type;
  delete out.events;
  if ("you" in delta) out.you = delta.you;
  if ("table" in delta) out.table = delta.table;
  if ("seats" in delta) out.seats = delta.seats;
  const drop = delta.drop || {};
  const hand = { ...(state.hand || {}), ...(delta.hand || {}) };
  for (const key of drop.hand || []) delete hand[key];
  const view = { ...(hand.view || {}), ...(delta.view || {}) };
  for (const key of drop.view || []) delete view[key];
  if (delta.players) {
    const players = (view.players || []).slice();
    for (const [index, entry] of Object.entries(delta.players)) players[Number(index)] = entry;
    view.players = players;
  }
  hand.view = view;
  out.hand = hand;
  return out;
}

/** Whether `delta` applies to `state`: the same hand, at the delta's base. */
export function chains(state, delta) {
  return Boolean(state && state.hand && state.hand.id === delta.hand_id && state.hand.seq === delta.base);
}
