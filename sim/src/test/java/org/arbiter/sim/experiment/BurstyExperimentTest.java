package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 001 Fig. 1, Fig. 3 and Table 1's shape in the simulator, seeds 1-5, 100 points of 1 000 requests.
 * "variance" is 001's, of the points (see BurstyExperiment's design note); the per-request variance
 * is asserted where it holds too. Not asserted, because it does not hold (docs/experiments.md has the
 * numbers): the predictor without its feedback loop (`model`) has a mean about 10 × D_ref (it cannot
 * catch up with long Pareto bursts); Fig. 1's controller is the predictor with its loop, `model-pi`.
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
        // the figures are Fig. 1's controller (the predictor with its feedback loop) and Fig. 3's (liu)
        assertThat(r.fig1().mean()).isEqualTo(modelPi.mean());
        assertThat(r.fig1().variance()).isEqualTo(modelPi.variance());
        assertThat(r.fig3().mean()).isEqualTo(liu.mean());
        assertThat(r.fig3().variance()).isEqualTo(liu.variance());
        assertThat(r.fig1().pointMeans()).hasSize(100);
        // 001 §5: 1.2034 -> 0.0051; here at least two orders of magnitude, Fig. 1 against Fig. 3
        assertThat(r.fig1().variance()).as("variance, Fig. 1 (model-pi) / Fig. 3 (liu)")
                .isGreaterThan(100 * r.fig3().variance());
        assertThat(modelPi.variance()).isGreaterThan(100 * liuPi.variance());
        // without its loop the predictor is worse still, per request too
        assertThat(model.variance()).isGreaterThan(100 * liu.variance());
        assertThat(model.requestVariance()).as("per-request variance, model / liu")
                .isGreaterThan(100 * liu.requestVariance());
        assertThat(modelPi.requestVariance()).as("per-request variance, model-pi / liu")
                .isGreaterThan(liu.requestVariance());
        // both means within 10 % of D_ref (001 §3: 2.0041; §5: "very close to" D_ref), and liu-pi's
        assertThat(r.fig1().mean()).as("Fig. 1 (model-pi) mean").isBetween(0.9 * target, 1.1 * target);
        assertThat(r.fig3().mean()).as("Fig. 3 (liu) mean").isBetween(0.9 * target, 1.1 * target);
        assertThat(liuPi.mean()).as("liu-pi mean").isBetween(0.9 * target, 1.1 * target);

        // Table 1's shape: at every load above the light one, both burstinesses, ≥ 10× lower variance,
        // liu's mean within 10 % of D_ref, and the model's above it from the middle load on (001 Table 1:
        // "when the traffic is more heavy and bursty, the average response time exceeds the reference")
        int checked = 0;
        for (BurstyResult.SweepPoint p : r.sweep()) {
            assertThat(p.load() * p.burst()).as("On rate / capacity").isLessThanOrEqualTo(0.9 + 1e-9);
            if (p.load() == BurstyExperiment.SWEEP_LOADS.get(0)) {
                continue;
            }
            assertThat(p.model().variance()).as("load %s burst %s", p.load(), p.burst())
                    .isGreaterThan(10 * p.liu().variance());
            assertThat(p.liu().mean()).as("load %s burst %s", p.load(), p.burst())
                    .isBetween(0.9 * BurstyExperiment.SWEEP_TARGET, 1.1 * BurstyExperiment.SWEEP_TARGET);
            if (p.load() >= 0.4) {
                assertThat(p.model().mean()).as("load %s burst %s", p.load(), p.burst())
                        .isGreaterThan(BurstyExperiment.SWEEP_TARGET);
            }
            checked++;
        }
        assertThat(checked).isEqualTo((BurstyExperiment.SWEEP_LOADS.size() - 1) * BurstyExperiment.SWEEP_BURSTS.size());
    }

    /**
     * The seeds on which Fig. 1's loop failed before its integral was bounded below: seed 26's light
     * load wound μ down to ~0 and a long On period queued for twenty minutes (mean 15.6 s), seed 9's
     * did less (2.91 s). The mean holds within 10 % on both now, as on seeds 1-40 (docs/experiments.md).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {9, 26})
    void fig1sLoop_holdsItsMean_whereLightLoadOnceWoundItDown(long seed) {
        BurstyResult.Run r = BurstyExperiment.simulate(BurstyExperiment.figureSetup(100),
                BurstyExperiment.Controller.MODEL_PI, seed);
        assertThat(r.mean()).isBetween(1.8, 2.2);
    }

    @Test
    void resultJson_hasTheIssuesShape() throws Exception {
        BurstyResult r = BurstyExperiment.run(1, 3, m -> { });
        JsonNode j = new ObjectMapper().readTree(ResultJson.toJson(r));
        assertThat(j.get("fig1").get("mean").isNumber()).isTrue();
        assertThat(j.get("fig3").get("variance").isNumber()).isTrue();
        assertThat(j.get("fig1").get("requestVariance").isNumber()).isTrue();
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
