package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 001 Fig. 1, Fig. 3 and Table 1's shape in the simulator, seeds 1-5, 100 points of 1 000 requests:
 * what holds of the issue's targets. Not asserted, because they do not hold here (docs/experiments.md
 * has the numbers): the plain predictor's (`model`, no feedback loop) mean within 10 % of D_ref (it is
 * about 10 × D_ref: it cannot catch up with long Pareto bursts; Fig. 1's controller is the predictor
 * with its feedback loop, `model-pi`, whose mean is asserted), `model-pi`'s per-request variance
 * 100 × liu's (it is 5-7 ×; over the points it is thousands of times); in the sweep, the 10 × ratio
 * where the On rate exceeds the server's capacity (nothing can hold the delay there).
 */
final class BurstyExperimentTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void queueLengthFeedback_cutsTheVarianceHundredfold_andBothMeansAreWithinTenPercent(long seed) {
        BurstyResult r = BurstyExperiment.run(seed, 100, m -> { });
        BurstyResult.Summary model = r.controllers().get("model");
        BurstyResult.Summary modelPi = r.controllers().get("model-pi");
        BurstyResult.Summary liu = r.controllers().get("liu");
        BurstyResult.Summary liuPi = r.controllers().get("liu-pi");
        double target = r.setup().targetSeconds();
        assertThat(target).isEqualTo(2.0);
        // 001 §5: at least two orders of magnitude, per request and over the points of 1 000
        assertThat(model.variance()).as("per-request variance, model / liu").isGreaterThan(100 * liu.variance());
        assertThat(model.pointVariance()).as("point variance, model / liu").isGreaterThan(100 * liu.pointVariance());
        assertThat(model.pointVariance()).isGreaterThan(100 * liuPi.pointVariance());
        // Fig. 1's controller (the predictor with its feedback loop) against Fig. 3's, over the points
        assertThat(modelPi.pointVariance()).as("point variance, model-pi / liu").isGreaterThan(100 * liu.pointVariance());
        assertThat(modelPi.variance()).as("per-request variance, model-pi / liu").isGreaterThan(liu.variance());
        // both means within 10 % of D_ref (001 §3: 2.0041; §5: "very close to" D_ref), and liu-pi's
        assertThat(modelPi.mean()).as("model-pi mean").isBetween(0.9 * target, 1.1 * target);
        assertThat(liu.mean()).as("liu mean").isBetween(0.9 * target, 1.1 * target);
        assertThat(liuPi.mean()).as("liu-pi mean").isBetween(0.9 * target, 1.1 * target);
        // the figures are those runs, with 100 points each
        assertThat(r.fig1().mean()).isEqualTo(model.mean());
        assertThat(r.fig3().variance()).isEqualTo(liu.variance());
        assertThat(r.fig1().pointMeans()).hasSize(100);

        // Table 1's shape: wherever the On rate is within capacity, above the light load, ≥ 10×
        int checked = 0;
        for (BurstyResult.SweepPoint p : r.sweep()) {
            boolean light = p.load() == BurstyExperiment.SWEEP_LOADS.get(0);
            boolean peaksFit = p.load() * p.burst() <= 1;
            if (!light && peaksFit) {
                assertThat(p.model().variance()).as("load %s burst %s", p.load(), p.burst())
                        .isGreaterThan(10 * p.liu().variance());
                assertThat(p.liu().mean()).as("load %s burst %s", p.load(), p.burst())
                        .isLessThan(1.1 * BurstyExperiment.SWEEP_TARGET);
                checked++;
            }
        }
        assertThat(checked).isEqualTo(4);   // burst 1.5 at 0.25, 0.4, 0.55; burst 3 at 0.25
    }

    @Test
    void resultJson_hasTheIssuesShape() throws Exception {
        BurstyResult r = BurstyExperiment.run(1, 3, m -> { });
        JsonNode j = new ObjectMapper().readTree(ResultJson.toJson(r));
        assertThat(j.get("fig1").get("mean").isNumber()).isTrue();
        assertThat(j.get("fig3").get("variance").isNumber()).isTrue();
        assertThat(j.get("controllers").fieldNames()).toIterable()
                .containsExactly("model", "model-pi", "liu", "liu-pi", "queue-length");
        assertThat(j.get("sweep").get(0).get("model").get("variance").isNumber()).isTrue();
        assertThat(j.get("sweep").get(0).get("liu").get("mean").isNumber()).isTrue();
        assertThat(j.get("sweep").get(0).get("load").asDouble()).isEqualTo(0.1);
    }

    @Test
    void sameSeed_sameResult_otherSeed_otherResult() {
        assertThat(ResultJson.toJson(BurstyExperiment.run(5, 2, m -> { })))
                .isEqualTo(ResultJson.toJson(BurstyExperiment.run(5, 2, m -> { })))
                .isNotEqualTo(ResultJson.toJson(BurstyExperiment.run(6, 2, m -> { })));
    }

    @Test
    void badPoints_areRefusedNamingTheOption() {
        assertThatThrownBy(() -> BurstyExperiment.run(1, 1, m -> { })).hasMessage("--points: 1 (expected: 2 to 10000)");
    }
}
