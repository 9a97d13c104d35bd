package dev.bulwark.cli.internal;

/** How progress is shown on standard error while a run goes on ({@code --progress}). */
enum ProgressMode {
    /** {@link #LIVE} on a terminal, {@link #PLAIN} otherwise. */
    AUTO,
    /** One line rewritten in place four times a second. */
    LIVE,
    /** One new line per second (for logs and CI). */
    PLAIN,
    /** Nothing. */
    OFF
}
