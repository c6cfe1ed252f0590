// Refusals in the reader's language: a refused command or a socket error, from the frame's
// `code` and `params` (docs/protocol.md, "Refusal codes").  The English reason the server sent
// is the fallback for a code not listed here.
//   refusalText({type: "refused", code: "not_your_turn", params: {seat: "S"}, reason: "it is S's turn"})
//     -> "轮到南家" / "it is S's turn"
// Each text is an English message of the djangojs gettext catalog, its Chinese in
// locale/zh_Hans/LC_MESSAGES/djangojs.po (docs/ui.md, "The table's words: one gettext catalog").
// tests/platform/test_refusal_codes.py checks that every code the server can send is here, in
// both languages, with the parameters the server fills in.

import { LANG, verbLabel, windName } from "./i18n.js";
import { parseTiles, tileShort } from "./tiles.js";

// The catalog's functions (i18n.js says why the fallbacks).
const catalog = globalThis.django ?? {};
const gettext = catalog.gettext ?? ((msgid) => msgid);
const pgettext = catalog.pgettext ?? ((_context, msgid) => msgid);

// code -> the refusal in the page's language: an English message of the djangojs catalog.
const TEXTS = {
  added_kong_robbed_by_win_only: gettext("an added kong can only be robbed by a win"),
  already_answered: gettext("you have already answered this tile"),
  already_seated: gettext("you already sit at this table"),
  autoplay_needs_bool: gettext("autoplay takes \"on\": true or false"),
  autoplay_not_playing: gettext("托管 is only for a running match"),
  bad_options: pgettext("bad_options", "{detail}"),
  balance_held: gettext("you need {needed} available to {doing} at this table (you have {available} available: {held} of your balance of {balance} is held by your other matches)"),
  balance_short: gettext("you need at least {needed} to {doing} at this table (you have {balance})"),
  cannot_claim_now: gettext("you cannot {verb} {tile} now"),
  cannot_now: gettext("you cannot {verb} now"),
  choose_one_of: gettext("{question}: choose one of {choices}"),
  chow_must_hold_discard: gettext("the chow must contain the discarded {tile}"),
  chow_names_three_tiles: gettext("a chow names its three tiles, e.g. 345m"),
  chow_next_player_only: gettext("only the discarder's 下家 (next player) may chow"),
  chow_not_a_run: gettext("a chow is three consecutive tiles of one suit"),
  chow_not_consecutive: gettext("a chow is three consecutive tiles of one suit (9 and 1 do not connect)"),
  chow_tiles_missing: gettext("you need {tiles} in hand to chow {tile}"),
  command_needs_hand: gettext("a command names its hand"),
  command_needs_seq: gettext("a command must carry the seq it answers"),
  discard_after_claim: gettext("after a chow or pung you must discard"),
  discard_needs_tile: gettext("a discard needs a tile"),
  dongbei_already_ready: gettext("you have already declared 听 (已报听)"),
  dongbei_final_no_claim: gettext("a tile laid aside in the last four cannot be claimed"),
  dongbei_final_no_discard: gettext("the last four tiles are not played: only the tile just drawn is laid aside (每人抓的最后一张牌不用打)"),
  dongbei_final_no_discard_win: gettext("a tile laid aside in the last four cannot be won on: only self-draw wins there"),
  dongbei_final_no_kong: gettext("no kong on the last four tiles (最后4张不可以杠)"),
  dongbei_final_no_ready: gettext("no 报听 on the last four tiles"),
  dongbei_kong_replacement_in_final: gettext("no kong now: its replacement would be one of the last four tiles (最后4张不可以杠)"),
  dongbei_not_a_win: gettext("not a winning hand (four melds and a pair, 七小对 or 十三幺)"),
  dongbei_ready_discard_drawn: gettext("after 报听 your hand may not change: discard the tile just drawn, {tile} (报听后不能换牌)"),
  dongbei_ready_kong_changes_wait: gettext("after 报听 a kong may not change your winning tiles: konging {tile} would"),
  dongbei_ready_names_one_tile: gettext("报听 names one tile: the discard made with it"),
  dongbei_ready_needs_single_wait: gettext("after discarding {tile} your hand waits on {tiles}: 报听 needs a single winning tile (只胡一张牌)"),
  dongbei_ready_needs_tile: gettext("报听 is declared with a discard: name the tile (报听时打出一张牌)"),
  dongbei_ready_needs_wait: gettext("after discarding {tile} your hand waits on nothing: 报听 needs a ready hand (听牌)"),
  dongbei_ready_no_claim: gettext("after 报听 you may not {verb} (报听后不能吃碰)"),
  dongbei_seven_pairs_need_yaojiu: gettext("七小对 must hold a 1, 9 or honour (不可少幺九)"),
  exposed_kong_needs_three: gettext("an exposed kong needs three {tile} in hand"),
  hand_over: gettext("the hand is over"),
  hands_out_of_range: gettext("a match has 1 to 64 hands"),
  json_limit: pgettext("json_limit", "{detail}"),
  kong_must_be_discard: gettext("the kong must be of the discarded {tile}"),
  kong_needs_tile: gettext("a kong needs a tile"),
  left_match: gettext("you left this match: 托管 plays your seat to its end"),
  malformed_command: gettext("malformed command: {detail}"),
  match_started: gettext("the match has started"),
  match_started_watch: gettext("the match has started; you can watch"),
  match_aborted: gettext("the match was stopped"),
  match_not_running: gettext("only a running match can be stopped"),
  chair_change_score_only: gettext("a chair changes hands during a match only at a score-only table"),
  message_too_large: gettext("message too large (over {limit} bytes)"),
  needs_no_meld: gettext("a {verb} names no meld"),
  needs_no_tile: gettext("a {verb} names no tile"),
  needs_one_tile: gettext("a {verb} names one tile"),
  needs_three_tiles: gettext("a {verb} names its three tiles"),
  no_discard_to_claim: gettext("there is no discard to {verb}"),
  no_kong_held: gettext("you hold no kong of {tile} (need four in hand, or one added to your pung)"),
  no_question: gettext("there is no question to answer now"),
  no_replacement_tile: gettext("no tile is left for the replacement draw"),
  no_such_hand: gettext("no such hand"),
  no_such_seat: gettext("no seat {seat}"),
  no_such_table: gettext("no such table"),
  no_such_tile: gettext("no tile has code {value}"),
  no_win_after_claim: gettext("you cannot win after a chow or pung without a new tile"),
  not_a_json_object: gettext("messages are JSON objects"),
  not_a_win: gettext("not a winning hand"),
  not_seated: gettext("you do not sit at this table"),
  not_your_draw: gettext("it is {seat}'s turn to draw, not {actor}'s"),
  not_your_question: gettext("{question} is not yours to choose"),
  not_your_turn: gettext("it is {seat}'s turn"),
  nothing_to_answer: gettext("you have nothing to answer"),
  nothing_to_pass: gettext("there is nothing to pass on"),
  other_question: gettext("the question now is {question} ({key})"),
  overloaded: gettext("the server is busy: try again shortly"),
  own_tile: gettext("you cannot claim your own tile"),
  owner_only: gettext("only the table's owner may add bots"),
  bot_level: gettext("unknown bot level {level}"),
  protocol_version: gettext("protocol version {version} is not spoken here: use v=2"),
  pung_needs_two: gettext("a pung needs two {tile} in hand"),
  question_answered: gettext("you have already answered"),
  seat_taken: gettext("that seat is taken"),
  self_win_not_your_turn: gettext("you may only declare a self-drawn win on your own turn"),
  server_failed_autoplay: gettext("the server could not switch 托管: try again"),
  server_failed_choice: gettext("the server could not record the answer: try again"),
  server_failed_command: gettext("the server could not apply the command: try again"),
  spectator_cannot_act: gettext("spectators cannot act"),
  spectator_cannot_autoplay: gettext("spectators cannot use 托管"),
  spectator_cannot_choose: gettext("spectators cannot choose"),
  stake_not_covered: gettext("your available balance no longer covers this match's stake"),
  stake_too_small: gettext("the stake must be at least 1"),
  hints_not_in_tournaments: gettext("a tournament table has no hints"),
  stake_unaffordable: gettext("nobody could sit at a stake of {stake}: it needs {needed} per player and no wallet holds that much"),
  stale_command: gettext("stale command: the table is at seq {seq}, not {sent}"),
  table_full: gettext("the table is full"),
  text_frames_only: gettext("send JSON text frames"),
  tile_not_in_hand: gettext("{tile} is not in your hand"),
  time_limits_out_of_range: gettext("time limits: 5–300 s per turn, 3–120 s per claim"),
  too_many_messages: gettext("too many messages: slow down"),
  too_many_sockets_per_address: gettext("too many open table sockets: at most {limit} per network address"),
  too_many_sockets_per_user: gettext("too many open table sockets: at most {limit} per account"),
  unknown_action: gettext("unknown action '{verb}'"),
  unknown_message_type: gettext("unknown message type {type}"),
  waiting_for_answers: gettext("waiting for answers on {tile} from {seats}"),
  waiting_for_prompt: gettext("waiting for {seats} to answer first"),
  wenzhou_caishen_no_chow: gettext("a 财神 may not be used in a chow (财神不能吃牌)"),
  wenzhou_caishen_no_discard: gettext("a 财神 can never be discarded (财神不能打出)"),
  wenzhou_caishen_no_kong: gettext("a 财神 may not be konged (财神不能杠)"),
  wenzhou_caishen_no_pung: gettext("a 财神 may not be punged (财神不能碰)"),
  wenzhou_chow_leaves_only_caishen: gettext("after this chow you would hold only 财神, which cannot be discarded"),
  wenzhou_follow_single_honour: gettext("you must follow the last discard with your single {tiles} (跟打单张风字牌)"),
  wenzhou_paoma_self_draw_only: gettext("跑马 ({form}): this hand may only be won by self-draw (只能自摸)"),
  wenzhou_passed_pung: gettext("过碰: you passed on punging {tile}; you may pung it again after your next draw or pung"),
  wenzhou_passed_win: gettext("过胡: you passed on winning with {tile}; not again before your next draw or pung"),
  wenzhou_pung_leaves_only_caishen: gettext("after this pung you would hold only 财神, which cannot be discarded"),
  wenzhou_single_honours_first: gettext("you hold single winds/dragons ({tiles}): discard one of them first (先打单张风字牌)"),
  window_answer_kept: gettext("you have already answered this discard"),
  zhangzhou_answer_first: gettext("answer first: {verbs} or pass"),
  zhangzhou_answer_rob_kong_first: gettext("answer first: guess a concealed kong ({verb} with a tile) or pass"),
  zhangzhou_double_you_discard: gettext("{seat} is 双游: you may only win by self-draw or discard the tile you just received ({tile})"),
  zhangzhou_double_you_no_claims: gettext("{seat} is 双游: nobody may chow, pung or kong until {seat}'s next draw"),
  zhangzhou_double_you_no_discard_win: gettext("during 双游 the forced discards cannot be won on at this table"),
  zhangzhou_gold_gone: gettext("the flipped 金 is no longer in the wall"),
  zhangzhou_gold_no_chow: gettext("the 金 in your hand cannot be used in a chow"),
  zhangzhou_gold_no_kong: gettext("the 金 cannot be konged"),
  zhangzhou_no_claim_on_gold: gettext("nobody may {verb} a discarded 金"),
  zhangzhou_no_replacement_tile: gettext("no drawable tile is left for the kong's replacement"),
  zhangzhou_no_win_on_gold: gettext("nobody may win on a discarded 金 (金不能点炮)"),
  zhangzhou_passed_win: gettext("先弃后和: you passed a win; no win on another's tile until your own next turn"),
  zhangzhou_rob_gold_answered: gettext("抢金 is decided before play: only when you are asked, and you have answered"),
  zhangzhou_rob_gold_before_play: gettext("抢金 is only possible before play, when you are asked"),
  emote_rate: gettext("too many quick phrases: at most {count} in {seconds} seconds"),
  spectator_cannot_emote: gettext("spectators cannot send quick phrases"),
  unknown_emote: gettext("no such quick phrase {code}"),
  zhangzhou_rob_gold_dealer_not_ready: gettext("抢金 needs 16 of your 17 tiles to be 听牌"),
  zhangzhou_rob_gold_names_no_tile: gettext("抢金 names no tile"),
  zhangzhou_rob_gold_needs_ready: gettext("抢金 needs a 听牌 hand"),
  zhangzhou_rob_gold_not_ready: gettext("抢金 needs your 16 tiles to be 听牌"),
  zhangzhou_rob_gold_pending: gettext("wait: the others are still deciding on 抢金"),
  zhangzhou_rob_kong_when_asked: gettext("a concealed kong may only be guessed when you are asked, before your own draw"),
  zhangzhou_three_golds_needed: gettext("三金倒 needs three 金"),
  zhangzhou_two_golds_self_draw: gettext("with two or more 金 you may only win by self-draw (两金必须自摸)"),
  zhedong_de_discard_no_chow: gettext("a discarded 得 cannot be chowed, punged or won on (得不能吃碰和)"),
  zhedong_de_discard_no_pung: gettext("a discarded 得 cannot be chowed, punged or won on (得不能碰)"),
  zhedong_de_discard_no_win: gettext("a discarded 得 cannot be won on (得不能和)"),
  zhedong_de_kong_into_reserve: gettext("no kong into the reserve: after its replacement draw {left} tiles would be left, fewer than the {reserve} that must stay with {kongs} kong(s) (杠一过二)"),
  zhedong_de_no_chow: gettext("the 得 may not take part in a chow (得不能吃)"),
  zhedong_de_no_kong: gettext("the 得 cannot be konged: it only acts in a win"),
  zhedong_de_passed_pung: gettext("you passed a pung of {tile} and have not drawn since (过碰)"),
  zhejiang_caishen_added_kong_just_drawn: gettext("上杠 is only allowed with the tile just drawn at this table"),
  zhejiang_caishen_no_chow: gettext("the 财神 in your hand may not take part in a chow (财神不得参与吃碰)"),
  zhejiang_caishen_no_kong: gettext("the 财神 may not be konged"),
  zhejiang_caishen_no_pung: gettext("the 财神 may not take part in a pung (财神不得参与吃碰)"),
  zhejiang_caishen_no_win_on_discarded_wild: gettext("a discarded 财神 cannot be won on"),
  zhejiang_caishen_xianggong: gettext("相公: you chowed a discarded 财神 and cannot win this hand"),
};

const DOING_ZH = { sit: "入座", play: "开局" };

// How a parameter reads in Chinese (English shows the server's values as they are: the notation,
// seat winds and verbs its English reason uses).
function zhParam(key, value) {
  const text = String(value);
  if (key === "tile") return tileShort(text, "zh");
  if (key === "tiles") return parseTiles(text).map((t) => tileShort(t, "zh")).join(" ");
  if (key === "seat" || key === "actor") return windName(text);
  if (key === "seats") return text.split(", ").map((s) => windName(s) + "家").join("、");
  if (key === "verb") return verbLabel(text);
  if (key === "verbs") return text.split(" or ").map((v) => verbLabel(v)).join("、");
  if (key === "doing") return DOING_ZH[text] ?? text;
  return text;
}

/** The refusal of `msg` ({code, params, reason}) in the page's language; else its reason. */
export function refusalText(msg) {
  const template = msg && msg.code ? TEXTS[msg.code] : undefined;
  if (template === undefined) return msg && msg.reason !== undefined ? String(msg.reason) : "";
  const params = msg.params || {};
  return template.replace(/\{(\w+)\}/g, (whole, key) => {
    if (!(key in params)) return whole;
    return LANG === "zh" ? zhParam(key, params[key]) : String(params[key]);
  });
}
