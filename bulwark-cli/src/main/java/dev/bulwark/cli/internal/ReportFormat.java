package dev.bulwark.cli.internal;

/** How a report is written to standard output ({@code --format}). */
enum ReportFormat {
    /** For people: aligned tables and a verdict. */
    TEXT,
    /** One JSON object, for programs. */
    JSON,
    /** A header line and one line per run, for spreadsheets. */
    CSV
}
