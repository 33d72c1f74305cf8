"""The presets' data (docs/rules.md §8): every rule system as values, each with the seed passage
behind it. Plain data, no logic: ``fastsheng.rules`` builds the ``Rules`` of each preset from it
(``PRESETS``, ``PRESET_SOURCES``, ``get_rules``).

* ``SPECS``: preset -> field -> ``(value, the passage behind it)``; a field a preset does not list
  takes the value of ``USUAL`` with the source "(reading) ... is silent".
* ``LABELS``: the seed each preset reproduces; ``SUMMARIES``: what sets it apart, in one line.
"""

# The table quotes the seeds in Chinese; its lines may exceed the line length.
# ruff: noqa: E501

from __future__ import annotations

from typing import Any

__all__ = ["LABELS", "SUMMARIES", "USUAL", "SPECS", "TIME_CAP"]


LABELS: dict[str, str] = {
    "standard": "001 竞赛规则",
    "super": "000 + 002 超级版",
    "classic": "003",
    "twenty": "002 比赛规则 = 004 00双升",
    "renda": "004 中国人民大学",
    "tournament": "004 规程 (2007)",
    "jokerbid": "004 级牌+王",
    "huayun": "004 华云杯",
    "yingchun": "004 迎春喜",
    "jifen": "004 积分编排制",
    "duiju": "004 对局",
}

#: What sets each preset apart, in one line (the table of docs/rules.md §8; `rules list`).
SUMMARIES: dict[str, str] = {
    "standard": "pair over single, once; hand 1 pairs over pairs S>H>C>D; reinforcing is final; kitty card 1; plus-two, throw kitty ≥3; standard table; 10 per card; must-play J, A; partner may not trump after the dealer side's failed throw",
    "super": "strict ladder BJ>SJ>S>H>C>D; reinforcing raises; 炒底; stake ×2 per overcall; kitty card 3; linear; super table; throws followed by suit only; half-stake penalty",
    "classic": "jokers over pairs; after reinforcing only joker pairs; hand-1 dealer = first declarer; no declaration → NT; linear; 20 flat penalty; throws followed by suit only",
    "twenty": "strict ladder S>H>D>C; 炒底 only if declared; kitty card 1; powers; twenty table; 2→10, must-play 10; tie → dealer side",
    "renda": "first pair wins, no joker pairs; limited level chain; card 3 skipping jokers; powers, throw 4 if pair else 2; defenders ≤ +5; no penalty",
    "tournament": "pair over single, joker pair only over a pair overcall; first declarer deals; no declaration → NT; `cards` kitty; 9→K",
    "jokerbid": "calls need a joker; ordered D<C<H<S<SJ pair<BJ pair; random kitty card",
    "huayun": "jokers over pairs over singles; random first dealer; flip kitty for a level card; powers; 5 per card; must-play 10",
    "yingchun": "pair over single, joker pair over pair; single joker → NT in hand 1; kitty card 1; powers; 10 per card; tie → dealer side",
    "jifen": "pair over single; joker pair only after a pair overcall; BJ over SJ pair only in hand 1; plus-two; tie → draw",
    "duiju": "strict ladder; no overcalls in hand 1; calls close with the deal; +1 level per overcall; kitty card 3; trump-first void fill; must-play A; tie → draw",
}

USUAL: dict[str, Any] = {
    "suit_order": "SHCD",
    "hand1_pairs_over_pairs": False,
    "joker_pairs": "ladder",
    "hand1_joker_pairs": True,
    "bj_over_sj": "always",
    "reinforce": "raises",
    "self_overcall": "never",
    "hand1_overcalls": True,
    "hand1_dealer": "final",
    "overcall_after_burial": "no",
    "declare_needs_joker": False,
    "hand1_single_joker": False,
    "kitty_trump_final": False,
    "declaring_closes": "kitty",
    "overcall_bonus": "none",
    "tractor_chain": "full",
    "nt_level_tractor": True,
    "throw_follow": "shape",
    "void_fill": "any",
    "overtrump_throw": "decisive",
    "partner_no_trump_after_failed_throw": False,
    "throw_penalty": "none",
    "throw_penalty_points": 10,
    "throw_kitty": "largest",
    "level_table": "standard",
    "defender_cap": None,
    "start_rank": "2",
    "end_rank": "A",
    "must_play": (),
    "hand_cap": None,
    "cap_tie": "dealer",
}

TIME_CAP = "a time limit in the seed: set hand_cap yourself"

SPECS: dict[str, dict[str, tuple[Any, str]]] = {
    "standard": {
        "overcall_ladder": (
            "pair_over_single",
            "001 第十三条: 其他牌手可用两张相同花色的级牌（包括两个颜色相同的王）…反已亮单张级牌",
        ),
        "suit_order": ("SHCD", "001 第二条: 可以按照黑红梅方的顺序超抢"),
        "hand1_pairs_over_pairs": (
            True,
            "001 第二条: 用两张相同花色的超抢，可以按照黑红梅方的顺序超抢",
        ),
        "joker_pairs": ("ladder", "001 第十三条: （包括两个颜色相同的王）…用对王反主为“无主”"),
        "hand1_joker_pairs": (
            False,
            "(reading) 001 第二条 抢庄 names level cards only: 用两张相同花色的2…超抢单2",
        ),
        "bj_over_sj": ("never", "(reading) 001 第十三条 allows one overcall: 反已亮单张级牌"),
        "reinforce": (
            "final",
            "001 第十三条: 在别人未反主之前，可将新抓到的这张级牌一并加亮出来，谓防反",
        ),
        "self_overcall": ("never", "001 第十三条: 反主只能反别人，不能自己反自己"),
        "hand1_overcalls": (True, "001 第二条: 其他牌手可用两张相同花色的2亮在桌面上超抢单2"),
        "hand1_dealer": ("final", "001 第二条: 超抢成功者成为庄家"),
        "overcall_after_burial": ("no", "001 第十三条: 反主必须在庄家拿起原始底牌前进行"),
        "declare_needs_joker": (False, "001 第十三条: 抢先将某花色的级牌亮在桌面上…谓亮主"),
        "hand1_single_joker": (False, "(reading) 001 declares with level cards only"),
        "no_declaration": (
            "kitty1",
            "001 第十三条 定主: 由庄家翻开原始底牌上面的第一张牌…若第一张牌是大王或小王，则为无主",
        ),
        "kitty_trump_final": (False, "(reading) 001 is silent; calls close with the kitty anyway"),
        "declaring_closes": ("kitty", "001 第十三条: 反主必须在庄家拿起原始底牌前进行"),
        "overcall_bonus": ("none", "(reading) 001 has no overcall bonus"),
        "tractor_chain": (
            "full",
            "001 第四条: 在将牌中，对子的大小按以下顺序排列：大王、小王、主级牌、副级牌、A",
        ),
        "nt_level_tractor": (
            True,
            "(reading) the usual chain in no trump (积分编排制: 小王可与任何花色的级牌组合为拖拉机)",
        ),
        "throw_follow": ("shape", "001 第七条: 按照上述不同组合的跟牌方法分别跟牌或垫牌"),
        "void_fill": ("any", "001 第七条: 只有在没有这门花色的牌时才允许任意垫出其他花色的牌"),
        "overtrump_throw": (
            "decisive",
            "001 第九条: 在超将吃含有对子的甩牌时，以一对牌大于将吃为“超”",
        ),
        "partner_no_trump_after_failed_throw": (
            True,
            "001 第十七条: 甩错牌…且庄家同伴不得将吃和超将吃",
        ),
        "throw_penalty": ("per_card", "001 第十七条: 甩错几张牌，扣几十分"),
        "throw_penalty_points": (10, "001 第十七条: 甩错几张牌，扣几十分"),
        "kitty_multiplier": (
            "plus_two",
            "001 第十一条: 单张抠底 2 倍；对子抠底 4 倍；连对抠底二连对 6 倍，以后每多连 1 对加 2",
        ),
        "throw_kitty": (
            "at_least_3",
            "001 第十一条: 甩牌抠底 3 倍或按其中包含的张数最多的组合计算 (reading: the larger)",
        ),
        "level_table": (
            "standard",
            "001 第十二条: 80 分庄家下台…120 分，防守方上台并升一级；以后每多得 40 分多升一级",
        ),
        "defender_cap": (None, "001 第十二条: 以后每多得 40 分多升一级 (no cap)"),
        "start_rank": ("2", "001 第十五条: 从 2 打起"),
        "end_rank": ("A", "001 第十五条: 先打过 A 者为胜方"),
        "must_play": (("2", "J", "A"), "001 第十五条: 2、J、A 必打"),
        "hand_cap": (None, f"001 第十五条: 每局两个小时 ({TIME_CAP})"),
        "cap_tie": (
            "dealer",
            "(reading) 001 第十五条: 哪一方的级别升得最高为获胜方; equal levels are not covered",
        ),
    },
    "super": {
        "overcall_ladder": (
            "strict",
            "000/002 反主: 反主顺序须按照大王>小王>黑桃>红杏>梅花>方片的次序进行",
        ),
        "suit_order": ("SHCD", "000/002 反主: 大王>小王>黑桃>红杏>梅花>方片"),
        "joker_pairs": (
            "ladder",
            "000 反主: 其他玩家若手上有相同花色的对级牌或对常主，可亮出进行反主",
        ),
        "bj_over_sj": ("always", "000/002 反主: 大王>小王>…"),
        "reinforce": (
            "raises",
            "000 上保险: 上保险后，若其他玩家再进行反主，则必须反大于该花色的级牌或常主才可",
        ),
        "self_overcall": (
            "after_other",
            "000 反主: 报主玩家也可参与反主，但必须在有其他玩家先进行反主的前提下",
        ),
        "hand1_dealer": ("final", "002 反主反打: 此时反主后，反主玩家变成当前庄家"),
        "overcall_after_burial": (
            "yes",
            "000/002 反主炒底: 除游戏第一局外，反主可在庄家盖底牌后，开始出牌之前按庄家逆时针方向依次进行",
        ),
        "no_declaration": (
            "kitty3",
            "000 无人报主: 从底牌中抽取正数第三张牌的花色作为该局的主花色。若第三张为常主则该局游戏为无主",
        ),
        "kitty_trump_final": (False, "000 无人报主: …该局游戏为无主。（详见反主规则）"),
        "declaring_closes": ("kitty", "002 反主反打: 反主需要在报主玩家（当前庄家）拿底牌之前进行"),
        "overcall_bonus": ("stake", "002 上保险: 当前牌局反主 3 次，则最后结果的金币数需×2³"),
        "tractor_chain": (
            "full",
            "000 连对: 对大王和对小王；对主级牌和对其他级牌；对其他级牌和对主花色A之间也可组成连对",
        ),
        "throw_follow": ("suit", "000 甩牌: 其他玩家必须也跟出该花色的牌"),
        "throw_penalty": (
            "half_stake",
            "000/002 甩牌: 若玩家甩牌失败，则强制性出导致甩牌失败牌型中的最小牌，并扣除当前房间底金的1/2",
        ),
        "kitty_multiplier": ("linear", "000 扣底: 连对扣底：底牌分数×4×连对对数"),
        "throw_kitty": ("largest", "002 扣底: 甩牌扣底：按照甩牌中最大的牌型计算"),
        "level_table": (
            "super",
            "000 升级: 0分（大光）主打方升6级 … 285—320分（封顶）捡分方升6级（封顶）",
        ),
        "end_rank": ("A", "000 预赛: 以先打过A的一方获胜"),
        "hand_cap": (None, f"000 预赛: 每轮1个小时内级数高的队伍获胜 ({TIME_CAP})"),
    },
    "classic": {
        "overcall_ladder": (
            "jokers_over_pairs",
            "003 反主: 相同花色的對級牌、對大王或對小王，可亮出進行反主；定主後…只能反無主",
        ),
        "joker_pairs": ("ladder", "003 反主: 對大王或對小王，可亮出進行反主"),
        "bj_over_sj": ("always", "(reading) as 004 附件2: 双大王可以反双小王"),
        "reinforce": ("jokers_only", "003 定主: 定主後，若其他玩家只能反無主"),
        "self_overcall": (
            "after_other",
            "003 反主: 報主玩家也可參與反主，但必須在有其他玩家先進行反主的前提下",
        ),
        "hand1_dealer": ("first", "003: 第一局時報主的那方為當前莊家"),
        "no_declaration": ("no_trump", "003 無人報主: 若還沒有人報主，則該局游戲為無主"),
        "declaring_closes": ("kitty", "003 反主: 每局報主結束後，拾底牌之前"),
        "throw_follow": ("suit", "003 甩牌: 其他玩家必須也跟出該花色的牌"),
        "throw_penalty": (
            "flat",
            "003 懲罰規則: 莊家甩牌失敗，給閑家加20分；閑家甩牌失敗，扣除閑家20分",
        ),
        "throw_penalty_points": (20, "003 懲罰規則: 甩牌失敗…20分"),
        "kitty_multiplier": ("linear", "003 扣底: 連對扣底：底牌分數×4×連對對數"),
        "throw_kitty": ("largest", "003 扣底: 甩牌扣底：按照甩牌中最大的牌型計算"),
        "level_table": (
            "standard",
            "003 升級: 0分…升3級 5—35分…升2級 40—75分…升1級 80—115分換莊 …每增加40分升一級",
        ),
    },
    "twenty": {
        "overcall_ladder": (
            "strict",
            "002 比赛规则 四: “炒地皮”，从大到小顺序为：大王、小王、黑、红、方、梅",
        ),
        "suit_order": ("SHDC", "002 比赛规则 四: 大王、小王、黑、红、方、梅"),
        "bj_over_sj": ("always", "002 比赛规则 四: 大王、小王、…"),
        "self_overcall": (
            "after_other",
            "(reading) as 002 超级版: 报主玩家也可参与反主，但必须在有其他玩家先进行反主的前提下",
        ),
        "hand1_dealer": ("final", "002 比赛规则 八: 反庄只能在翻底牌之前"),
        "overcall_after_burial": (
            "if_declared",
            "002 比赛规则 四: 主在翻底牌前确认则允许“炒地皮”…若主是在翻底牌时确认的则不允许",
        ),
        "no_declaration": ("kitty1", "(reading) 002 比赛规则 四: 若主是在翻底牌时确认的 (card 1)"),
        "kitty_trump_final": (
            True,
            "002 比赛规则 四: 若主是在翻底牌时确认的则不允许“炒地皮”",
        ),
        "throw_penalty": ("per_card", "002 比赛规则 六: 有N张甩不出去应扣N*10分"),
        "throw_penalty_points": (10, "002 比赛规则 六: 有N张甩不出去应扣N*10分"),
        "kitty_multiplier": (
            "powers",
            "002 比赛规则 九: 单扣N=2，双扣N=4，拖拉机扣N=8，以此类推",
        ),
        "level_table": (
            "twenty",
            "002 比赛规则 十: 0分---4级；5-25分---庄家升3级；…120－135台下升2级，依次类推",
        ),
        "end_rank": ("10", "002 比赛规则 三: 先过10为胜"),
        "must_play": (("10",), "002 比赛规则 三: 逢10必打 (二: 不用“逢2必打”)"),
        "hand_cap": (None, f"002 比赛规则 十一: 每轮比赛时间为一小时 ({TIME_CAP})"),
        "cap_tie": ("dealer", "002 比赛规则 十一: 升级高者获胜，同级时，台上一方获胜"),
    },
    "renda": {
        "overcall_ladder": ("first_pair", "人大 2: 用双张反主。反牌不分大小，先者为庄"),
        "joker_pairs": ("never", "人大 2: 不能反无主"),
        "reinforce": ("final", "(reading) 人大 2: 反牌不分大小，先者为庄 (the first pair stands)"),
        "hand1_dealer": ("final", "人大 2: 如无人反牌，叫牌人即为庄家…先者为庄"),
        "overcall_after_burial": ("no", "人大 2: 埋牌之后，不再反底"),
        "no_declaration": (
            "kitty3_skip_jokers",
            "人大 2: 以底牌上往下数第三张花色为主，若第三张为大小王，则顺延至第四张",
        ),
        "tractor_chain": (
            "limited",
            "人大 出牌原则: 执行唯一性原则，含一对大王与一对小王；一对小王与一对正点主牌",
        ),
        "nt_level_tractor": (
            False,
            "(reading) 人大 唯一性原则: only the 正点主牌 pair meets the SJ pair; no trump has none",
        ),
        "kitty_multiplier": ("powers", "人大 抠底: 单抠乘2倍，双抠乘4倍，拖拉机乘8倍，三拖乘16倍"),
        "throw_kitty": (
            "pair_4",
            "人大 抠底: 甩牌抠底，若甩出牌中有对，则按照双抠计算；无对，则按照单扣计算得分",
        ),
        "level_table": (
            "standard",
            "人大 升级: 大光（0分）升3级，小光（35分及以下）升2级，（75分及以下）升1级；80分上台，以后每增加40分升一级",
        ),
        "defender_cap": (5, "人大 升级: 但最高只能升五级"),
    },
    "tournament": {
        "overcall_ladder": (
            "pair_over_single",
            "规程 亮牌规则: 一方用单张叫主后，其他人可以用双牌反主",
        ),
        "joker_pairs": ("after_pair", "规程 亮牌规则: 反主后，有大小王可以再反成无主"),
        "bj_over_sj": ("never", "(reading) 规程: 再反成无主 names one joker overcall"),
        "reinforce": ("final", "规程 亮牌规则: 前者先用双张定主后面不能反主"),
        "self_overcall": ("never", "规程 亮牌规则: 但不可以自己反自己"),
        "hand1_dealer": ("first", "规程 轮庄规则: 开局中，双方争庄，先亮者为庄家"),
        "no_declaration": ("no_trump", "规程 亮牌规则: 若发牌结束仍无人亮牌，则打无主"),
        "kitty_multiplier": (
            "cards",
            "规程 扣底规则: 根据最后一圈牌的最大牌型的牌张数抠底。假设最后一圈牌最大牌型为对子，则抠底分翻倍",
        ),
        "throw_kitty": ("largest", "规程 扣底规则: 最后一圈牌的最大牌型的牌张数"),
        "level_table": (
            "standard",
            "规程 记分规则: 0 庄家方连升 3 级；不满 40 连升 2 级；…大于等于 160 小于 200 抓分方连升 2 级",
        ),
        "start_rank": ("9", "规程 比赛方法 4: 每局从9开始至k为止"),
        "end_rank": ("K", "规程 比赛方法 4: 每局从9开始至k为止，谁最先过级谁赢"),
    },
    "jokerbid": {
        "overcall_ladder": (
            "ordered",
            "004 报主: 每局均可反主，一反到底。（按照方片、梅花、红桃、黑桃、对小王、对大王由小到大的顺序进行，不可逆序反主）",
        ),
        "suit_order": ("SHCD", "004 报主: 按照方片、梅花、红桃、黑桃…由小到大的顺序"),
        "joker_pairs": (
            "ladder",
            "004 反主: 相同花色的对级牌加相应颜色的一张王或对王，可亮出进行反主",
        ),
        "bj_over_sj": ("always", "004 报主: 对小王、对大王由小到大"),
        "reinforce": (
            "raises",
            "(reading) no 加固 in the seed; the ordered ladder needs a higher call",
        ),
        "self_overcall": ("never", "(reading) 004 反主: 除当时报主的玩家外，其他玩家…"),
        "hand1_dealer": ("final", "(reading) 004 抢报: 第一局…由四个玩家之间进行抢报确定当局庄家"),
        "declare_needs_joker": (
            True,
            "004 抢报: 当前级牌附带一个张王（大王只能报红色主牌（红杏和方片）小王只能报黑色主牌（黑桃和梅花））",
        ),
        "no_declaration": (
            "random_kitty",
            "004 无人报主: 由庄家从底牌中抽取任意一张牌的花色作为该局的主花色。玩家中有人能与此张牌配对的一方为庄家",
        ),
        "kitty_multiplier": ("linear", "(reading) the seed is cut off before scoring; as 000"),
    },
    "huayun": {
        "overcall_ladder": ("jokers_over_pairs", "华云杯 6: 反主顺序对王>对级牌>单色牌"),
        "suit_order": (
            "SHDC",
            "华云杯 2: 点数大小相同者以黑红方梅为序 (the kitty flip's ties; the ladder ignores suits)",
        ),
        "joker_pairs": (
            "ladder",
            "华云杯 6: 其他玩家若手上有相同花色的对级牌或对王，可亮出进行反主",
        ),
        "bj_over_sj": ("never", "(reading) 华云杯 6: 对王 is one step of 对王>对级牌>单色牌"),
        "self_overcall": ("never", "华云杯 6: 除当时报主的玩家外，其他玩家…可亮出进行反主"),
        "hand1_dealer": ("random", "华云杯 4: 第一轮翻牌定庄（即随机翻一张牌，谁抓到谁为庄家）"),
        "no_declaration": (
            "flip_level",
            "华云杯 5: 从底牌中依次翻出，该局级牌在前，则该局级牌为主花色…则以最大那张牌的花色为主花色",
        ),
        "kitty_trump_final": (True, "华云杯 6: 反主是指每局报主结束后，翻底牌之前"),
        "declaring_closes": ("kitty", "华云杯 6: 翻底牌之前"),
        "throw_penalty": ("per_card", "华云杯 9: 有N张甩不出去应扣N*5分"),
        "throw_penalty_points": (5, "华云杯 9: 有N张甩不出去应扣N*5分"),
        "kitty_multiplier": ("powers", "华云杯 12: 单扣N=2，双扣N=4，拖拉机扣N=8，以此类推"),
        "must_play": (("10",), "华云杯 4: 从2开始，不用“逢2必打”，但逢10必打"),
    },
    "yingchun": {
        "overcall_ladder": ("pair_over_single", "迎春喜 3: 主牌同色对反单张"),
        "joker_pairs": ("after_pair", "迎春喜 3: 双王反同色对"),
        "bj_over_sj": (
            "never",
            "(reading) 迎春喜 3: 双王反同色对 names joker pairs over suit pairs only",
        ),
        "reinforce": ("raises", "(reading) 迎春喜 3: 双王反同色对, a reinforced pair included"),
        "hand1_single_joker": (True, "迎春喜 2: 抢庄可亮无主（单张大、小王，单张王不能反2）"),
        "hand1_dealer": ("final", "迎春喜 3: 在翻底牌前允许“反主”但不反庄（打2时可反庄）"),
        "no_declaration": ("kitty1", "迎春喜 3: 若双方都亮不起主，则翻底牌第一张对点"),
        "kitty_trump_final": (True, "迎春喜 3: 翻底牌第一张对点，不允许“反主”"),
        "throw_penalty": ("per_card", "迎春喜 5: 有N张甩不出去应扣N*10分"),
        "throw_penalty_points": (10, "迎春喜 5: 有N张甩不出去应扣N*10分"),
        "kitty_multiplier": ("powers", "迎春喜 8: 单扣N=2，双扣N=4，拖拉机扣N=8，以此类推"),
        "must_play": ((), "迎春喜 2: 不用“逢2必打”"),
        "hand_cap": (None, f"迎春喜 二: 淘汰赛时间为60分钟 ({TIME_CAP})"),
        "cap_tie": ("dealer", "迎春喜 二: 升级高的一组晋级，同级时，台上一方获胜"),
    },
    "jifen": {
        "overcall_ladder": (
            "pair_over_single",
            "积分编排制 (四): 一方用单张级牌叫主后，其他人可用双张级牌反主",
        ),
        "suit_order": ("SHCD", "积分编排制 (四): 用级牌亮主时，不分花色大小 (unused)"),
        "joker_pairs": ("after_pair", "积分编排制 (四): 反主后，有成对的大小王可以再反成无主"),
        "hand1_joker_pairs": (True, "积分编排制 (三): 打第一副牌时抢主抢庄，反无主反庄"),
        "bj_over_sj": ("hand1", "积分编排制 (三): 只有在第一幅牌抢庄时可以用大王反小王"),
        "reinforce": ("final", "积分编排制 (四): 前者用双张级牌定主后面不能再反主"),
        "self_overcall": ("never", "积分编排制 (四): 但自己不能反自己"),
        "hand1_dealer": ("final", "积分编排制 (三): 打第一副牌时抢主抢庄，反无主反庄"),
        "no_declaration": (
            "kitty1",
            "积分编排制 (五): 以翻开底牌的第一张花色为主牌（若使王牌则为无主）",
        ),
        "kitty_trump_final": (True, "积分编排制 (五): 任何人不能再反主"),
        "declaring_closes": ("kitty", "积分编排制 (四): 反主必须在庄家拿底牌之前亮出"),
        "nt_level_tractor": (
            True,
            "积分编排制 (二): 打无主时…小王可与任何花色的级牌组合为拖拉机",
        ),
        "kitty_multiplier": (
            "plus_two",
            "积分编排制 (八): 单张抠底，底牌分乘2；对子抠底，底牌分乘4；连对抠底，二连对乘6，以后每多加一对加2倍",
        ),
        "throw_kitty": ("largest", "积分编排制 (八): 甩牌抠底按其中包含的倍数最多的组合计算"),
        "level_table": (
            "standard",
            "积分编排制 (九): 低于80分坐庄方升级；低于40分升2级；0分升3级…达到160分时升2级上台",
        ),
        "must_play": ((), "积分编排制 (七): 除每轮第一副牌需抢打级牌2以外，没有必打的级主"),
        "hand_cap": (None, f"积分编排制 一: 每轮比赛用时90分钟 ({TIME_CAP})"),
        "cap_tie": ("draw", "积分编排制 二: 如打平（不论台上台下），各记１分"),
    },
    "duiju": {
        "overcall_ladder": (
            "strict",
            "对局 (四)2: 反牌时，花色级别由高至低，分别为大王、小王、黑桃、红心、梅花、方块",
        ),
        "suit_order": ("SHCD", "对局 (四)2: 大王、小王、黑桃、红心、梅花、方块"),
        "bj_over_sj": ("always", "对局 (四)2: 大王、小王、…"),
        "self_overcall": ("never", "对局 (四)2: 自己叫牌不能反自己"),
        "hand1_overcalls": (False, "对局 (四)1: 除第一盘牌外，以后每盘牌均可反牌"),
        "hand1_dealer": ("first", "对局 (三)1: 谁先抓到某一花色“2”，且先亮在桌面谁就为庄家"),
        "no_declaration": (
            "kitty3",
            "对局 (三)2: 若抓牌结束后无人叫牌，则按底牌第三张的花色为主牌",
        ),
        "kitty_trump_final": (True, "对局 (三)2: 且该盘牌不得反弹"),
        "declaring_closes": ("deal", "对局 (三)2: 每盘牌叫牌，必须在该盘牌最后一张牌起完之前"),
        "overcall_bonus": ("level", "对局 (四)4: 每反一次升一级"),
        "void_fill": ("trump_first", "对局 (五)2: 如果该花色不足时，要贴主"),
        "kitty_multiplier": ("linear", "(reading) 对局 is silent on the kitty; as 000"),
        "must_play": (("A",), "对局 (一): 比赛从“2”开始打，遇“A”必打"),
        "hand_cap": (None, f"对局 (一): 每局90分钟 ({TIME_CAP})"),
        "cap_tie": ("draw", "对局 (一): 常规赛中，若双方同为一级则作平局处理"),
    },
}
