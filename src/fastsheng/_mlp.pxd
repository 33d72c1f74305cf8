# The forward pass of a small ReLU MLP, shared by the learned bot's model (fastsheng._learned)
# and the search's learned belief (fastsheng._infer): y = b2 + w2 . relu(W1 (x - mu) / sd + b1).
# Header only (inline): each module compiles it under its own fp-contract=off, and the sums run
# in this fixed order, so the frozen bots' play is the same on every build.

cdef enum:
    MLP_MAX_IN = 64          # inputs at most (the features: 32 and 33)


# x: nin inputs; w1: hidden rows of nin weights, row after row (a C array [rows][nin])
cdef inline float mlp_relu(const float* x, int nin, int hidden, const float* mu, const float* sd,
                           const float* w1, const float* b1, const float* w2,
                           float b2) noexcept nogil:
    cdef int i, j
    cdef float z, y = b2
    cdef float xs[MLP_MAX_IN]
    for j in range(nin):
        xs[j] = (x[j] - mu[j]) / sd[j]
    for i in range(hidden):
        z = b1[i]
        for j in range(nin):
            z += w1[i * nin + j] * xs[j]
        if z > 0:
            y += w2[i] * z
    return y
