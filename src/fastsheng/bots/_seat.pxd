# A searching seat's settings: the fields of its typed specification (fastsheng.bots.spec), made
# once by the spec's `core_fields()` and copied into the seat (fastsheng._game's seat_t). Every
# research setting is a field with its published value as the default, so nothing outside the
# seat decides how it plays. Leaf header: the C core cimports it, so it cimports nothing.

cdef enum:
    FAMILY_NONE = 0          # the seat does not search: its row in the table of bots plays
    FAMILY_SEARCH = 1        # `search` (frozen): every candidate over k worlds
    FAMILY_V2 = 2            # `search-v2`: the candidates raced
    FAMILY_V3 = 3            # `search-v3`: raced when the learned model finds the decision close


cdef struct search_t:
    int family               # FAMILY_*
    int k                    # worlds of a decision (a race's at most)
    int cands                # candidate plays compared
    int guide                # search-v3: the row of the learned bot whose model ranks them
    double z                 # the gate: a challenger's mean gain above z standard errors
    double zdrop             # races: dropped when off course to clear the gate at k worlds
    int k0                   # races: worlds of the first round
    int early                # search-v3: no race before this trick; v2: fewer worlds before it
    int late                 # search-v3: every decision raced from this trick; v2: more worlds
    # search-v2 only
    int early_div            # worlds divided by this before `early`
    int k0_early             # the first round's worlds then
    int late_mul             # worlds multiplied by this from `late`
    int confirm              # 1/confirm of the race's worlds, fresh, confirm the winner (0: off)
    int consistent           # worlds from fastsheng._worlds (0: the frozen sampler)
    int tries                # rejection tries per world
    int halve                # keep the better half of the candidates after each round
    # search-v3's race
    int close                # raced when a challenger is predicted within close/100 net levels
    int top                  # challengers raced at most
    int gate                 # the gate in tenths of a standard error (10: `z`)
    int chains               # the inference chains a race's worlds come from in turn
    int maker                # one world dealer per race (0: each world dealt alone; the same)
    int steps                # the chain's steps between two worlds
    int burn                 # and before the first
    int oracle               # analysis: the races play every world on the real deal (a cheat)
    # reading the play (fastsheng.bots._infer, _card_belief)
    int infer                # a misfit's weight in tenths of a natural log (0: uniform worlds)
    int kitty                # misfits per kitty card the model bot would not have buried
    int belief               # the learned belief's kind (0: plain misfits; 2: the shipped one)
    int kinds                # decisions read: bit 0 leads, bit 1 follows
    int model                # the model bot's row (-1: the seat's base bot)
    float soft               # > 0: a play judged by the learned model's predicted gain
    float lam                # the per-card belief's power (0: off)
    # the burial searched (fastsheng.bots._bury_search)
    int bury
    int bury_kmul            # its worlds: k x bury_kmul, at most bury_maxw
    int bury_maxw
    int bury_rules           # the named swaps among its candidates
    int play                 # 0: a seat that searches its burial or calls leads and follows
                             # as its base bot (what those searches gain alone)
    double bury_z
    # the calls searched (fastsheng.bots._call_search)
    int call
    int call_kmul
    int call_maxw
    int call_every           # 1: every question searched
    double call_z
