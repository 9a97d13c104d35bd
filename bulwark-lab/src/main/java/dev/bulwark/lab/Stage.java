package dev.bulwark.lab;

import java.time.Duration;

/**
 * One stage of an open-loop schedule: arrivals at a rate that goes linearly from {@code fromRate} to
 * {@code toRate} per second over {@code length} (equal rates make a plateau).
 *
 * @param name the stage's name in reports
 * @param fromRate requests per second at the stage's start
 * @param toRate requests per second at its end
 * @param length how long it lasts
 */
record Stage(String name, double fromRate, double toRate, Duration length) {

    /**
     * Checks the stage.
     *
     * @throws IllegalArgumentException when a rate is negative or the length is not positive
     */
    Stage {
        if (fromRate < 0 || toRate < 0) {
            throw new IllegalArgumentException("fromRate and toRate must be >= 0, got " + fromRate + ", " + toRate);
        }
        if (length.isNegative() || length.isZero()) {
            throw new IllegalArgumentException("length must be positive, got " + length);
        }
    }

    /**
     * A plateau at one rate.
     *
     * @param name the stage's name
     * @param rate requests per second
     * @param length how long
     * @return the stage
     */
    static Stage plateau(String name, double rate, Duration length) {
        return new Stage(name, rate, rate, length);
    }
}
