"""Player-facing wording of every house option, in zh-Hans and English.

The option keys and values stay as the engine and the API use them (``pair_base = "one"``);
this module only gives each option, its help line and each of its choices the words a player
reads on the rules page and in the create-table form.  The engine's own ``Option.label`` is a
developer's note and is never shown to players.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import get_language

from games.engine import Option


@dataclass(frozen=True)
class Words:
    """One text in both languages."""

    zh: str
    en: str

    def text(self) -> str:
        """The text in the reader's language (zh-Hans unless the active language is English)."""
        return self.en if (get_language() or "").startswith("en") else self.zh


@dataclass(frozen=True)
class OptionWords:
    label: Words
    help: Words | None = None
    choices: dict[Any, Words] = field(default_factory=dict)


def W(zh: str, en: str) -> Words:  # noqa: N802 — a short constructor keeps the table readable
    return Words(zh, en)


YES_NO = {True: W("是", "Yes"), False: W("否", "No")}

COMMON: dict[str, OptionWords] = {
    "base": OptionWords(W("底分", "Base stake"), W("每一分折合的钱包单位。", "Wallet units paid per point.")),
}

_ZHEDONG_LOST = W(
    "原规则有这个牌型，但没有写出番数；默认 0 番，可由开桌人约定。",
    "The rule text names this hand but gives no value; 0 by default, the table's creator may set one.",
)

BY_VARIANT: dict[str, dict[str, OptionWords]] = {
    "zhejiang_caishen": {
        "multiplier_kong_bloom": OptionWords(
            W("杠开倍数", "Win on a kong replacement: multiplier"),
            W(
                "杠后补牌自摸和牌时，和牌分乘以此数。",
                "A self-drawn win on the tile drawn after a kong is multiplied by this.",
            ),
        ),
        "multiplier_four_wilds": OptionWords(
            W("四财神倍数", "Four wilds: multiplier"),
            W("手中集齐四张财神和牌时乘以此数。", "A win holding all four wilds is multiplied by this."),
        ),
        "multiplier_heaven": OptionWords(
            W("天和倍数", "Heavenly hand: multiplier"),
            W("庄家起手即和牌时乘以此数。", "The dealer winning with the dealt hand is multiplied by this."),
        ),
        "multiplier_earth": OptionWords(
            W("地和倍数", "Earthly hand: multiplier"),
            W("闲家在第一轮和牌时乘以此数。", "A non-dealer winning in the first go-round is multiplied by this."),
        ),
        "robbing_kong_multiplier": OptionWords(
            W("拉杠和倍数", "Robbing a kong: multiplier"),
            W(
                "抢别人上杠的牌和牌时，按点炮和牌分的这个倍数计，由上杠的人一人支付。",
                "Winning on the tile someone adds to a pung scores this many times a discard win; "
                "the player who added it pays alone.",
            ),
        ),
        "ron_on_discarded_wild": OptionWords(
            W("可和别人打出的财神", "A discarded wild may be won on"),
            W("原规则未说明；默认不可以。", "The rule text is silent; by default it may not."),
            YES_NO,
        ),
        "added_kong_just_drawn_only": OptionWords(
            W("上杠只能用刚摸到的牌", "Add to a pung only with the tile just drawn"),
            W(
                "默认关闭：第四张牌可以是早先摸到、留在手里的。",
                "Off by default: the fourth tile may be one you drew earlier and kept.",
            ),
            YES_NO,
        ),
    },
    "wenzhou": {
        "base_tiers": OptionWords(
            W("底分进阶（按庄家连庄数）", "Base ladder (by the dealer's run)"),
            W(
                "庄家第一、二、三、四手的底分。",
                "The base for the dealer's first, second, third and fourth hand in a row.",
            ),
            {
                "1246": W("1、2、4、6", "1, 2, 4, 6"),
                "2468": W("2、4、6、8", "2, 4, 6, 8"),
                "36912": W("3、6、9、12", "3, 6, 9, 12"),
            },
        ),
        "follow_wind": OptionWords(W("跟风计分", "Score following winds"), None, YES_NO),
        "no_red_green": OptionWords(
            W("去掉红中、发财（128 张）", "Without red and green dragons (128 tiles)"), None, YES_NO
        ),
        "pair_base": OptionWords(
            W("两个闲家之间的底分", "Base between two non-dealers"),
            W("默认按原规则为 1 分。", "1 point by default, as the rule text says."),
            {"one": W("1 分", "1 point"), "first_tier": W("进阶的第一档", "The ladder's first step")},
        ),
        "dealer_hands_max": OptionWords(
            W("一位庄家最多连坐几手", "Most hands in a row for one dealer"),
            W("选 5 时，第五手仍按最高一档计分。", "With 5, the fifth hand stays on the top step."),
            {4: W("4 手", "4 hands"), 5: W("5 手", "5 hands")},
        ),
        "base_bets": OptionWords(
            W("买底、顶底何时算", "When base bets count"),
            None,
            {
                "symmetric": W("庄闲之间无论谁赢都算", "Whoever wins between dealer and player"),
                "one_sided": W("只有下注的人赢时才算", "Only when the player who bet wins"),
            },
        ),
        "follow_scope": OptionWords(
            W("跟打：必须跟打哪张牌", "Forced follow: which tile"),
            None,
            {
                "previous": W("只跟上一张打出的牌", "Only the tile discarded just before"),
                "visible": W("任何已经亮出的单张字牌", "Any single honour already in sight"),
            },
        ),
        "caishen_pairs": OptionWords(
            W("财神分在谁之间结算", "Wild points settle between"),
            None,
            {
                "all": W("每两位玩家之间", "Every pair of players"),
                "winner": W("只在和牌者与每位输家之间", "Only the winner and each loser"),
            },
        ),
        "caishen_unit": OptionWords(
            W("每张财神的分数", "Points per wild"),
            None,
            {"one": W("1 分", "1 point"), "first_tier": W("进阶的第一档", "The ladder's first step")},
        ),
        "caishen_on_draw": OptionWords(W("流局时也算财神分", "Wild points also on a drawn hand"), None, YES_NO),
        "earth_window": OptionWords(
            W("地胡的时机", "When an earthly hand counts"),
            None,
            {
                "first_discard": W("和庄家打出的第一张牌", "A win on the dealer's first discard"),
                "before_second": W(
                    "庄家打第二张牌之前闲家的任何和牌", "Any non-dealer win before the dealer's second discard"
                ),
            },
        ),
    },
    "zhedong_de": {
        "de_from": OptionWords(
            W("得牌的定法", "How the wild (得) is chosen"),
            W(
                "原规则没有写明；默认翻出的那张牌就是得。",
                "The rule text does not say; by default the turned tile is the wild.",
            ),
            {
                "flipped": W("翻出的那张牌", "The turned tile itself"),
                "next": W("翻出那张牌的下一张", "The tile after the turned one"),
            },
        ),
        "fan_pure_one_suit": OptionWords(W("清一色番数", "Pure one suit: fan"), _ZHEDONG_LOST),
        "fan_mixed_one_suit": OptionWords(W("混一色番数", "Mixed one suit: fan"), _ZHEDONG_LOST),
        "fan_all_pungs": OptionWords(W("对对和番数", "All pungs: fan"), _ZHEDONG_LOST),
        "fan_ping_hu": OptionWords(W("平和番数", "All chows: fan"), _ZHEDONG_LOST),
        "fan_four_winds": OptionWords(W("四风会齐番数", "All four winds: fan"), _ZHEDONG_LOST),
        "fan_de_restored": OptionWords(W("得还原番数", "Wild used as itself: fan"), _ZHEDONG_LOST),
        "fan_self_draw": OptionWords(W("自摸番数", "Self-draw: fan"), _ZHEDONG_LOST),
        "fan_small_dragons_extra": OptionWords(
            W("小三元额外番数", "Little three dragons: extra fan"),
            W(
                "原规则的 2 番就是两副箭刻的番；设为 2 则另加 2 番。",
                "The text's 2 fan are those of the two dragon pungs; 2 here adds 2 more.",
            ),
        ),
        "ron_triplet_exposed": OptionWords(
            W("点炮凑成的刻子算明刻", "A pung finished by the winning discard counts as exposed"),
            W("默认关闭：手里的三张算暗刻。", "Off by default: three of a kind in the hand are concealed."),
            YES_NO,
        ),
        "self_draw_honour_any_wait": OptionWords(
            W("自摸本风或箭牌一律算 4", "Self-drawn own wind or dragon always scores 4"),
            W("默认关闭：只有单吊时才算。", "Off by default: only when it was a single wait."),
            YES_NO,
        ),
    },
    "zhangzhou": {
        "dead_wall": OptionWords(
            W("牌墙最后留下不摸的张数", "Tiles left undrawn at the end"),
            W("原规则没有给出张数；默认 16 张。", "The rule text gives no number; 16 by default."),
        ),
        "k_discard": OptionWords(W("平胡（点炮）分", "Discard win: points")),
        "k_self_draw": OptionWords(W("自摸分", "Self-draw: points")),
        "k_three_golds": OptionWords(
            W("三金倒分", "Three golds: points"), W("按自摸结算。", "Settled as a self-draw.")
        ),
        "k_rob_gold": OptionWords(W("抢金分", "Robbing the gold: points")),
        "k_single_you": OptionWords(W("单游分", "Single swim: points")),
        "k_double_you": OptionWords(W("双游分", "Double swim: points")),
        "k_triple_you": OptionWords(W("三游分", "Triple swim: points")),
        "factor_kong_bloom": OptionWords(W("杠上开花倍数", "Win on a kong replacement: multiplier")),
        "factor_robbing_kong": OptionWords(
            W("抢杠胡倍数", "Robbing a kong: multiplier"),
            W("抢别人补杠的牌，或猜中暗杠。", "Winning on an added kong tile, or guessing a concealed kong."),
        ),
        "dealer_streak_factor": OptionWords(
            W("与庄家之间的输赢乘连庄数", "Payments with the dealer × the dealer's run"),
            None,
            YES_NO,
        ),
        "discard_payer": OptionWords(
            W("点炮和牌由谁付", "Who pays a discard win"),
            None,
            {
                "all": W("三家各付一份", "All three losers, one share each"),
                "discarder": W("点炮的人付三份", "The discarder pays all three shares"),
            },
        ),
        "winner_points": OptionWords(
            W("和牌者的花分、杠分", "The winner's flower and kong points"),
            None,
            {
                "in_base": W("加进底分一起乘", "Added to the base before multiplying"),
                "separate": W("每位输家另外付", "Paid apart by each loser"),
            },
        ),
        "gold_drawable": OptionWords(
            W("翻出的金留在牌墙里照常摸", "The turned gold stays in the wall to be drawn"),
            W("关闭时它不会被摸到，场上只有 3 张金。", "Off: it is never drawn, so only 3 golds are in play."),
            YES_NO,
        ),
        "double_you_discard_win": OptionWords(
            W("双游时可以和别人打出的牌", "During a double swim, discards may be won on"),
            W("只能和牌，不能吃碰。", "A win only, never a chow or pung."),
            YES_NO,
        ),
    },
    "dongbei": {
        "anti_collusion": OptionWords(
            W("防作弊场", "Anti-collusion table"),
            W(
                "谁点炮谁给钱，自摸三家给钱；飘只在赢家与点炮者之间或自摸时结算。",
                "Only the discarder pays a discard win; all three pay a self-draw. "
                "A float bet is settled only with the winner.",
            ),
            YES_NO,
        ),
        "cap": OptionWords(
            W("封顶番数", "Cap (fan)"),
            W("十三幺按 2 × 2 的封顶次方计。", "Thirteen orphans pays 2 × 2 to the power of the cap."),
        ),
        "piao_max": OptionWords(
            W("最多可飘几倍", "Largest float bet (× base)"),
            W("可选 0、1、2、3、5、10……直到此数。", "Offered: 0, 1, 2, 3, 5, 10… up to this."),
        ),
        "ready_single_wait": OptionWords(
            W("报听只限单张听牌", "Declare ready only on a single wait"),
            W("关闭时任何听牌的手都可报听。", "Off: any ready hand may declare."),
            YES_NO,
        ),
        "fan_self_draw": OptionWords(W("自摸番数", "Self-draw: fan")),
        "fan_half_flush": OptionWords(W("混一色番数", "Mixed one suit: fan")),
        "fan_full_flush": OptionWords(W("清一色番数", "Pure one suit: fan")),
        "fan_deal_in": OptionWords(W("点炮者多付番数", "Discarder's extra fan")),
        "dealer_bonus": OptionWords(
            W("庄家番数", "Dealer's extra fan"), W("庄家赢或付时加。", "When the dealer wins or pays.")
        ),
        "kong_points_exposed": OptionWords(W("明杠、补杠杠分（× 底注）", "Exposed or added kong: points (× base)")),
        "kong_points_concealed": OptionWords(W("暗杠杠分（× 底注）", "Concealed kong: points (× base)")),
        "ready_kong_keeps_wait": OptionWords(
            W("报听后开杠不能改变听牌", "After declaring ready, a kong must keep the wait"),
            None,
            YES_NO,
        ),
        "count_direction": OptionWords(
            W("掷骰数数的方向", "Direction of counting the dice"),
            None,
            {
                "clockwise": W("顺时针（原规则）", "Clockwise (as the rule text says)"),
                "turn_order": W("按出牌顺序 东→南→西→北", "In turn order, East → South → West → North"),
            },
        ),
    },
}


def words_for(variant_key: str, option: Option) -> OptionWords | None:
    """The player wording of ``option`` of the rule set ``variant_key`` (None if none is written)."""
    return BY_VARIANT.get(variant_key, {}).get(option.key) or COMMON.get(option.key)


def label(variant_key: str, option: Option) -> str:
    words = words_for(variant_key, option)
    return words.label.text() if words else option.key


def help_text(variant_key: str, option: Option) -> str:
    words = words_for(variant_key, option)
    return words.help.text() if words and words.help else ""


def choice_label(variant_key: str, option: Option, value: Any) -> str:
    """A choice's words; numbers without their own words read as themselves."""
    words = words_for(variant_key, option)
    if words and value in words.choices:
        return words.choices[value].text()
    if isinstance(value, bool):
        return YES_NO[value].text()
    return str(value)
