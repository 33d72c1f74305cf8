# The learned models of the bots as plain structs (no module state): a small ReLU MLP and what
# each kind of model adds to it. fastsheng.bots._lineup loads them from the package's .npz files
# (their SHA-256 checked) and owns their arrays; the seats and the table of bots point at them.
# Leaf header: the C core cimports it for the pointers it carries, so it cimports nothing.

# x -> (x - mu) / sd -> relu(w1 x + b1) -> w2 . h + b2 (w1: hidden rows of nin floats).
cdef struct mlp_t:
    int nin
    int hidden
    const float* mu
    const float* sd
    const float* w1
    const float* b1
    const float* w2
    float b2


# One forward pass of a model of `nin` inputs (the caller's compile-time constant, which the
# loader checked against the model: inlined, the compiler unrolls the input loops as it did for
# the per-model copies this replaced). The sums run in the order every shipped model was trained
# and frozen with (the modules that inline it compile without FMA contraction), so a model's
# play never moves. `xs` is the caller's scratch of nin floats.
cdef inline float mlp_forward(const mlp_t* m, const float* x, float* xs,
                              const int nin) noexcept nogil:
    cdef int i, j
    cdef float z, y = m.b2
    cdef const float* row
    for j in range(nin):
        xs[j] = (x[j] - m.mu[j]) / m.sd[j]
    for i in range(m.hidden):
        z = m.b1[i]
        row = m.w1 + i * nin
        for j in range(nin):
            z += row[j] * xs[j]
        if z > 0:
            y += m.w2[i] * z
    return y


# learned-v1's model (fastsheng.bots._learned): a candidate's predicted gain, in net levels, over
# the base bot's play; it leaves the base play when a gain clears `margin`, among `want`.
cdef struct learned_t:
    mlp_t net
    float margin
    int want


# The learned belief of search-v3's inference (fastsheng.bots._infer): the logit of a past
# decision, bounded above by `clip` and spanning `span` hundredths.
cdef struct belief_t:
    mlp_t net
    float clip
    float span


# The per-card belief (fastsheng.bots._card_belief): a score per (card, place), no output bias.
cdef struct cards_t:
    mlp_t net
