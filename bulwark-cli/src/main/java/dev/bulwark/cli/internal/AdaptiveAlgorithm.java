package dev.bulwark.cli.internal;

/** The adaptive-limit algorithms {@code --adaptive} accepts. */
enum AdaptiveAlgorithm {
    /** {@link dev.bulwark.AdaptiveLimit#selfTuning()}: needs no tuning. */
    SELF_TUNING,
    /** {@link dev.bulwark.AdaptiveLimit#aimd()}. */
    AIMD,
    /** {@link dev.bulwark.AdaptiveLimit#gradient()}. */
    GRADIENT
}
