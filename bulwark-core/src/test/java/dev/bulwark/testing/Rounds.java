package dev.bulwark.testing;

/**
 * How many rounds a race loop runs: its own count, or fewer when {@code -Dbulwark.race.rounds} says so (mutation
 * testing runs every covering test once per mutant, so it lowers the count; the normal suite runs them all).
 */
public final class Rounds {

    private Rounds() {
    }

    public static int of(int rounds) {
        return Math.max(1, Math.min(rounds, Integer.getInteger("bulwark.race.rounds", rounds)));
    }
}
