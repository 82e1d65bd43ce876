package org.arbiter.dist.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The test parser accepts the format and refuses what Prometheus would refuse; PromQl finds metric names. */
final class PrometheusTextTest {

    static final String GOOD = """
            # HELP http_requests_total The total number of HTTP requests.
            # TYPE http_requests_total counter
            http_requests_total{method="post",code="200"} 1027 1395066363000
            http_requests_total{method="post",code="400"}    3 1395066363000

            # A comment.
            msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9
            # TYPE rpc_duration_seconds histogram
            rpc_duration_seconds_bucket{le="0.2"} 3
            rpc_duration_seconds_bucket{le="+Inf"} 5
            rpc_duration_seconds_sum 1.5
            rpc_duration_seconds_count 5
            # TYPE jobs_count counter
            jobs_count 7
            # TYPE temp gauge
            temp{where="out"} -Inf
            temp{where="in"} NaN
            """;

    @Test
    void wellFormedExposition_parses_withFamiliesAndEscapes() {
        PrometheusText.Exposition e = PrometheusText.parse(GOOD);
        assertThat(e.families().get("http_requests_total").type()).isEqualTo("counter");
        assertThat(e.families().get("http_requests_total").samples()).hasSize(2);
        assertThat(e.families().get("msdos_file_access_time_seconds").samples().get(0).labels())
                .containsEntry("path", "C:\\DIR\\FILE.TXT").containsEntry("error", "Cannot find file:\n\"FILE.TXT\"");
        assertThat(e.families().get("rpc_duration_seconds").type()).isEqualTo("histogram");
        assertThat(e.serves("rpc_duration_seconds_bucket")).isTrue();
        assertThat(e.familyOf("rpc_duration_seconds_count").orElseThrow().name()).isEqualTo("rpc_duration_seconds");
        // a counter whose own name ends in _count is its own family, not a histogram's part
        assertThat(e.familyOf("jobs_count").orElseThrow().type()).isEqualTo("counter");
        assertThat(e.serves("jobs")).isFalse();
        assertThat(e.serves("rpc_duration_seconds")).isFalse();
        assertThat(e.families().get("temp").samples().get(0).value()).isEqualTo(Double.NEGATIVE_INFINITY);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "1metric 1\n",                               // bad name
        "metric{label=\"a\"}\n",                     // no value
        "metric 1 2 3\n",                            // too much
        "metric{label=a} 1\n",                       // unquoted label value
        "metric{label=\"a} 1\n",                     // unterminated
        "metric{label=\"a\\t\"} 1\n",                // bad escape
        "metric{1label=\"a\"} 1\n",                  // bad label name
        "metric{a=\"1\",a=\"2\"} 1\n",               // label twice
        "metric{a=\"1\"}1\n",                        // no space
        "metric one\n",                              // bad value
        "metric 1 1.5\n",                            // bad timestamp
        "metric 1\nmetric 2\n",                      // series twice
        "a 1\nb 1\na{x=\"y\"} 1\n",                  // family not together
        "# TYPE a counter\n# TYPE a gauge\na 1\n",   // TYPE twice
        "a 1\n# TYPE a counter\n",                   // TYPE after samples
        "# TYPE a widget\na 1\n",                    // unknown type
        "# TYPE a counter\na -1\n",                  // negative counter
        "# TYPE h histogram\nh_bucket 1\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",          // bucket without le
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",  // not cumulative
        "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_count 1\n",                         // no +Inf
        "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 1\n",                      // +Inf != count
        "metric 1",                                  // no final newline
        "metric 1\r\n",                              // CR
    })
    void malformedLines_areRefused(String text) {
        assertThatThrownBy(() -> PrometheusText.parse(text)).isInstanceOf(PrometheusText.ParseException.class);
    }

    @Test
    void promQl_metricNames_skipFunctionsLabelsRangesAndVariables() {
        assertThat(PromQl.metricNames("histogram_quantile(0.95, sum by (le, class) (rate(arbiter_gateway_response_time_seconds_bucket{class=~\"$class\", component=\"gateway\"}[$__rate_interval])))"))
                .containsExactly("arbiter_gateway_response_time_seconds_bucket");
        assertThat(PromQl.metricNames("sum(rate(a_sum[5m])) / sum without (id) (rate(a_count[5m])) > bool 0.5 and on (class) b"))
                .containsExactly("a_sum", "a_count", "b");
        assertThat(PromQl.metricNames("max_over_time(up{job='x'}[1h:5m] offset 1d) * ignoring(id) group_left(server) c_total"))
                .containsExactly("up", "c_total");
        assertThat(PromQl.metricNames("1e3 * ${x} + topk(5, d)")).containsExactly("d");
    }
}
