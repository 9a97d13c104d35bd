package dev.bulwark.cli.internal.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bulwark.cli.internal.compare.CompareScenario;
import dev.bulwark.cli.internal.compare.Comparison;
import dev.bulwark.cli.internal.compare.Contender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The compare page reads well (issue 41, item 4): every legend entry inside its chart, goodput as lines rather than
 * stacked translucent areas, capacity steps marked, and a heat map whose every cell opens its time series.
 */
class CompareReportTest {

    private static List<Comparison.ScenarioResult> results;

    /** c20-steps (two capacity steps) and c6, one seed of 3 s: every limiter, fast. */
    static synchronized List<Comparison.ScenarioResult> shortComparison() {
        if (results == null) {
            List<Comparison.ScenarioResult> all = new ArrayList<>();
            for (String name : new String[] {"c20-steps", "c6"}) {
                CompareScenario scenario = CompareScenario.named(name);
                all.addAll(new Comparison(List.of(scenario), Contender.adaptive(scenario.serviceTime().meanNanos()),
                        List.of(1L), 3_000_000_000L).run(line -> { }));
            }
            results = List.copyOf(all);
        }
        return results;
    }

    private static String page() {
        return CompareReport.renderHtml(shortComparison(), List.of(1L), Duration.ofSeconds(3));
    }

    @Test
    void everyLegendEntryLiesInsideItsChart() {
        Matcher svg = Pattern.compile("<svg class=\"chart\" viewBox=\"0 0 (\\d+) (\\d+)\"(.*?)</svg>",
                Pattern.DOTALL).matcher(page());
        int charts = 0;
        while (svg.find()) {
            charts++;
            int width = Integer.parseInt(svg.group(1));
            Matcher legend = Pattern.compile("<text x=\"(\\d+)\" y=\"\\d+\" class=\"legend\">([^<]*)</text>")
                    .matcher(svg.group(3));
            int entries = 0;
            while (legend.find()) {
                entries++;
                // 7 px per character over-estimates 12 px text, so the whole name is within the viewBox.
                String name = legend.group(2).replaceAll("&[a-z#0-9]+;", "x");
                int end = Integer.parseInt(legend.group(1)) + 7 * name.length();
                assertThat(end).as("legend entry '%s' of a chart %d wide", legend.group(2), width)
                        .isLessThanOrEqualTo(width);
            }
            assertThat(entries).isPositive();
        }
        assertThat(charts).isEqualTo(2 * 8);
    }

    @Test
    void goodputIsDrawnAsLinesNotStackedTranslucentAreas() {
        assertThat(page()).doesNotContain("fill-opacity").contains("Goodput over time, c6, netflix AIMD");
    }

    @Test
    void capacityStepsAreMarked() {
        String page = page();
        String steps = page.substring(page.indexOf("<h2>c20-steps</h2>"), page.indexOf("<h2>c6</h2>"));

        // The limit chart and each of the seven small multiples mark both steps.
        assertThat(count(steps, ">capacity 10</text>")).isEqualTo(8);
        assertThat(count(steps, ">capacity 30</text>")).isEqualTo(8);
        assertThat(steps).contains(">capacity</text>");
    }

    @Test
    void everyHeatMapCellOpensItsLimitersTimeSeries() {
        String page = page();
        Set<String> ids = new HashSet<>();
        Matcher id = Pattern.compile(" id=\"([^\"]+)\"").matcher(page);
        while (id.find()) {
            ids.add(id.group(1));
        }
        Matcher cell = Pattern.compile("<td style=\"background:(#[0-9a-f]{6})\"><a href=\"#([^\"]+)\" "
                + "title=\"([^\"]+)\">").matcher(page);
        int cells = 0;
        while (cell.find()) {
            cells++;
            assertThat(ids).as(cell.group(3)).contains(cell.group(2));
        }
        assertThat(cells).isEqualTo(2 * 7);
        // The figure a cell opens is that limiter's, on that scenario.
        int at = page.indexOf("id=\"c1-7\"");
        assertThat(page.substring(at, page.indexOf("</figure>", at))).contains("Goodput over time, c6, netflix AIMD");
    }

    @Test
    void heatColoursFollowTheBins() {
        assertThat(CompareReport.heatColor(1.02)).isEqualTo(CompareReport.heatColor(0.97));
        assertThat(CompareReport.heatColor(0.96)).isNotEqualTo(CompareReport.heatColor(0.97));
        assertThat(CompareReport.heatColor(0.5)).isEqualTo(CompareReport.heatColor(0.1));
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }
}
