package dev.bulwark.cli.internal.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The page must render offline, years later: it may refer to nothing outside itself. */
class HtmlReportTest {

    @Test
    void isSelfContained() {
        for (String html : new String[] {HtmlReport.render(ShortRuns.withBulkhead()),
            HtmlReport.render(ShortRuns.withoutBulkhead())}) {
            String lower = html.toLowerCase(java.util.Locale.ROOT);
            assertThat(lower).doesNotContain("http://").doesNotContain("https://").doesNotContain("//cdn")
                    .doesNotContain("<script").doesNotContain("<link").doesNotContain("<img")
                    .doesNotContain("<iframe").doesNotContain("@import").doesNotContain("url(")
                    .doesNotContain(" src=").doesNotContain(" href=");
        }
    }

    @Test
    void hasTheThreeChartsAndTheTables() {
        String html = HtmlReport.render(ShortRuns.withBulkhead());

        assertThat(html).startsWith("<!DOCTYPE html>").contains("<meta charset=\"utf-8\">").endsWith("</html>\n");
        assertThat(count(html, "<svg ")).isEqualTo(3);
        assertThat(count(html, "</svg>")).isEqualTo(3);
        assertThat(html).contains("In flight and queued over time", "Throughput and rejections over time",
                "Latency distribution", "Outcomes", "Latency percentiles", "Little's law",
                "limit 32", "downstream capacity 32", "arrivals stop", ">in flight<", ">queued<", ">served<",
                ">refused<", ">end to end<");
        // A polyline for each series over time, with one point per sample at most.
        Matcher points = Pattern.compile("<polyline points=\"([^\"]*)\"").matcher(html);
        int lines = 0;
        while (points.find()) {
            lines++;
            assertThat(points.group(1).split(" ").length).isLessThanOrEqualTo(ShortRuns.withBulkhead().timeline()
                    .size());
        }
        assertThat(lines).isEqualTo(5);
    }

    @Test
    void escapesWhatItPrints() {
        assertThat(Html.escape("<a href='x'>&\"</a>")).isEqualTo("&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
    }

    @Test
    void anUnprotectedRunSaysSo() {
        String html = HtmlReport.render(ShortRuns.withoutBulkhead());

        assertThat(html).contains("no bulkhead").doesNotContain(">queued<").contains("downstream capacity 32");
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }
}
