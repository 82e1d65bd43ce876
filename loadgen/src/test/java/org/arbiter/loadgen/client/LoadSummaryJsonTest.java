package org.arbiter.loadgen.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** summary.json and timeseries.jsonl as the records write them: the keys, their order and number forms, pinned. */
final class LoadSummaryJsonTest {

    @Test
    void summary_writesTheDocumentedKeys_inOrder() throws Exception {
        LoadSummary.ClassSummary gold = new LoadSummary.ClassSummary(10, 7, 1, 1, 0, 1, 0.7, 1.25, 1.0, 2.5, 3.0, 1.7e-4);
        Map<String, LoadSummary.ClassSummary> classes = new LinkedHashMap<>();
        classes.put("gold", gold);
        classes.put("basic", LoadSummary.ClassSummary.NONE);
        LoadSummary s = new LoadSummary(10, classes, List.of(new LoadSummary.PhaseSummary("A", 0, 10, classes)));
        String cls = "{\"sent\":10,\"ok\":7,\"rejected\":1,\"errors\":1,\"timedOut\":0,\"lost\":1,\"throughputPerSecond\":0.7,"
                + "\"meanResponseSeconds\":1.25,\"p50ResponseSeconds\":1.0,\"p95ResponseSeconds\":2.5,\"p99ResponseSeconds\":3.0,"
                + "\"varianceResponseSeconds\":1.7E-4}";
        String none = "{\"sent\":0,\"ok\":0,\"rejected\":0,\"errors\":0,\"timedOut\":0,\"lost\":0,\"throughputPerSecond\":0.0,"
                + "\"meanResponseSeconds\":0.0,\"p50ResponseSeconds\":0.0,\"p95ResponseSeconds\":0.0,\"p99ResponseSeconds\":0.0,"
                + "\"varianceResponseSeconds\":0.0}";
        String both = "{\"gold\":" + cls + ",\"basic\":" + none + "}";
        assertThat(new ObjectMapper().writeValueAsString(s)).isEqualTo("{\"durationSeconds\":10.0,\"classes\":" + both
                + ",\"phases\":[{\"name\":\"A\",\"startSeconds\":0.0,\"endSeconds\":10.0,\"classes\":" + both + "}]}");
        assertThat(gold.dropped()).isEqualTo(3);
    }

    @Test
    void seriesPoint_writesTheTimeseriesLine() throws Exception {
        assertThat(new ObjectMapper().writeValueAsString(
                new ResultRecorder.SeriesPoint(1.5, 0.5, "gold", 4, 3, 1, 0, 0, 0, 6.0, 0.25)))
                .isEqualTo("{\"timeSeconds\":1.5,\"intervalSeconds\":0.5,\"class\":\"gold\",\"answered\":4,\"ok\":3,"
                        + "\"rejected\":1,\"errors\":0,\"timedOut\":0,\"lost\":0,\"throughputPerSecond\":6.0,"
                        + "\"meanResponseSeconds\":0.25}");
    }
}
