package org.arbiter.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.sim.experiment.ConcurrencyResult;
import org.arbiter.sim.experiment.PerClass;
import org.arbiter.sim.experiment.PhasesResult;
import org.arbiter.sim.experiment.RegionsResult;
import org.arbiter.sim.experiment.ResultJson;
import org.junit.jupiter.api.Test;

/**
 * Pins the live experiments' result.json (wall-clock runs, so no golden run): records built by
 * hand are written with the keys, order and nesting the live runs have always had — the live
 * run's keys, then {@code timeScale}, then the simulated run under {@code simulated}.
 */
final class LiveResultJsonTest {

    @Test
    void concurrency_liveKeysThenTimeScaleThenSimulated() {
        ConcurrencyResult live = new ConcurrencyResult(List.of(new ConcurrencyResult.Point(2, 1.98)), 2);
        ConcurrencyResult simulated = new ConcurrencyResult(List.of(new ConcurrencyResult.Point(2, 2.0)), 2);
        assertThat(ResultJson.toJson(new LiveResult.Concurrency(live, 0.05, simulated))).isEqualTo("""
                {
                  "points" : [ {
                    "concurrency" : 2,
                    "throughput" : 1.98
                  } ],
                  "knee" : 2,
                  "timeScale" : 0.05,
                  "simulated" : {
                    "points" : [ {
                      "concurrency" : 2,
                      "throughput" : 2.0
                    } ],
                    "knee" : 2
                  }
                }""");
    }

    @Test
    void phases_livePhasesThenTimeScaleThenSimulated() {
        PhasesResult.Phase a = new PhasesResult.Phase("A", new PerClass<>(5, 5), new PerClass<>(8.0, 2.0),
                new PerClass<>(1.04, 1.03), 4.9, new PerClass<>(0.96, 1.97));
        assertThat(ResultJson.toJson(new LiveResult.Phases(List.of(a), 0.05, new PhasesResult(List.of(a), 70341))))
                .isEqualTo("""
                        {
                          "phases" : [ {
                            "name" : "A",
                            "clients" : {
                              "basic" : 5,
                              "premium" : 5
                            },
                            "weights" : {
                              "basic" : 2.0,
                              "premium" : 8.0
                            },
                            "meanResponseSeconds" : {
                              "basic" : 1.03,
                              "premium" : 1.04
                            },
                            "throughputPerSecond" : 4.9,
                            "utility" : {
                              "basic" : 1.97,
                              "premium" : 0.96
                            }
                          } ],
                          "timeScale" : 0.05,
                          "simulated" : {
                            "combine" : "min",
                            "phases" : [ {
                              "name" : "A",
                              "clients" : {
                                "basic" : 5,
                                "premium" : 5
                              },
                              "weights" : {
                                "basic" : 2.0,
                                "premium" : 8.0
                              },
                              "meanResponseSeconds" : {
                                "basic" : 1.03,
                                "premium" : 1.04
                              },
                              "throughputPerSecond" : 4.9,
                              "utility" : {
                                "basic" : 1.97,
                                "premium" : 0.96
                              }
                            } ],
                            "simulatedRequestsPerWallSecond" : 70341
                          }
                        }""");
    }

    @Test
    void regions_livePoliciesThenTimeScaleThenSimulated() {
        RegionsResult r = new RegionsResult(Map.of("grm",
                new RegionsResult.Policy(List.of(new RegionsResult.Point(5, 10, 1.0)), 1, 1.0)));
        assertThat(ResultJson.toJson(new LiveResult.Regions(r, 0.02, r))).isEqualTo("""
                {
                  "combine" : "min",
                  "policies" : {
                    "grm" : {
                      "points" : [ {
                        "clusterUtility" : 1.0,
                        "basic" : 10,
                        "premium" : 5
                      } ],
                      "nonNegative" : 1,
                      "meanUtility" : 1.0
                    }
                  },
                  "timeScale" : 0.02,
                  "simulated" : {
                    "combine" : "min",
                    "policies" : {
                      "grm" : {
                        "points" : [ {
                          "clusterUtility" : 1.0,
                          "basic" : 10,
                          "premium" : 5
                        } ],
                        "nonNegative" : 1,
                        "meanUtility" : 1.0
                      }
                    }
                  }
                }""");
    }

    @Test
    void bursty_liveControllersInRunOrder_thenSetupThenSimulated_thenTheSameSetUpSimulated() throws Exception {
        Map<String, LiveResult.BurstyRun> live = new LinkedHashMap<>();
        live.put("model", new LiveResult.BurstyRun(424, 0, 9.298, 44.28, 59.96, 8, 23.158, 1.79, 1.212, 8.0, 1743));
        live.put("liu", new LiveResult.BurstyRun(424, 0, 2.771, 1.89, 3.36, 8, 7.747, 1.618, 1.119, 9.0, 1815));
        Map<String, org.arbiter.sim.experiment.BurstyResult.Summary> simulated = new LinkedHashMap<>();
        simulated.put("model", new org.arbiter.sim.experiment.BurstyResult.Summary(20.4, 109.1, 508.8));
        simulated.put("liu", new org.arbiter.sim.experiment.BurstyResult.Summary(2.0, 0.0001, 1.27));
        Map<String, LiveResult.BurstyRun> sameSetUp = new LinkedHashMap<>();
        sameSetUp.put("model", new LiveResult.BurstyRun(430, 0, 8.1, 40.5, 55.2, 8, 21.5, 1.7, 1.3, 9.0, 1800));
        sameSetUp.put("liu", new LiveResult.BurstyRun(430, 0, 2.5, 1.5, 3.0, 8, 7.1, 1.6, 1.1, 9.0, 1800));
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                ResultJson.toJson(new LiveResult.Bursty(live, 900, 0.1,
                        new LiveResult.BurstySetup(2, 2, 10, 0.5, 50, 1, 0.5, 30, 20, 50), simulated, sameSetUp)));
        assertThat(j.fieldNames()).toIterable().containsExactly("live", "seconds", "timeScale", "setup", "simulated",
                "simulatedSameSetUp");
        assertThat(j.get("simulatedSameSetUp").fieldNames()).toIterable().containsExactly("model", "liu");
        assertThat(j.get("simulatedSameSetUp").get("liu").fieldNames()).toIterable()
                .containsExactlyElementsOf(() -> j.get("live").get("liu").fieldNames());
        assertThat(j.get("simulatedSameSetUp").get("model").get("mean").asDouble()).isEqualTo(8.1);
        assertThat(j.get("live").fieldNames()).toIterable().containsExactly("model", "liu");
        assertThat(j.get("live").get("liu").fieldNames()).toIterable().containsExactly("requests", "failed", "mean",
                "variance", "requestVariance", "points", "maxSeconds", "steadyMeanSeconds", "meanWeight", "maxWeight",
                "allocations");
        assertThat(j.get("live").get("model").get("requests").asLong()).isEqualTo(424);
        assertThat(j.get("simulated").get("liu").get("variance").asDouble()).isEqualTo(0.0001);
        assertThat(j.get("simulated").get("liu").get("requestVariance").asDouble()).isEqualTo(1.27);
    }

    @Test
    void energy_livePoliciesInRunOrder_savingsLast() {
        Map<String, LiveResult.LiveDay> live = new LinkedHashMap<>();
        live.put("off", new LiveResult.LiveDay(1_000_000, 0.0, 0, 0, 0, 0, 0, 20_000, 5.0, 0, 0, 30.001, 150.0, 150.1, 0.21, 0.0));
        live.put("queue", new LiveResult.LiveDay(600_000, 0.015, 3, 1, 0, 2, 0, 20_000, 3.1, 3, 3, 30.001, 90.0, 95.5, 0.25, 40.0));
        Map<String, LiveResult.SimulatedDay> simulated = new LinkedHashMap<>();
        simulated.put("off", new LiveResult.SimulatedDay(0.0, 0.0, 5.0));
        simulated.put("queue", new LiveResult.SimulatedDay(39.5, 0.0, 3.0));
        assertThat(ResultJson.toJson(new LiveResult.Energy(live, simulated, 3600, 0.05, 19.87))).isEqualTo("""
                {
                  "live" : {
                    "off" : {
                      "energyJoules" : 1000000,
                      "droppedPercent" : 0.0,
                      "dropped" : 0,
                      "rejected" : 0,
                      "errors" : 0,
                      "timedOut" : 0,
                      "lost" : 0,
                      "sent" : 20000,
                      "meanServersUp" : 5.0,
                      "powerOffs" : 0,
                      "powerOns" : 0,
                      "meteredSeconds" : 30.001,
                      "poweredServerSecondsMin" : 150.0,
                      "poweredServerSecondsMax" : 150.1,
                      "meanResponseSeconds" : 0.21,
                      "savingsPercent" : 0.0
                    },
                    "queue" : {
                      "energyJoules" : 600000,
                      "droppedPercent" : 0.015,
                      "dropped" : 3,
                      "rejected" : 1,
                      "errors" : 0,
                      "timedOut" : 2,
                      "lost" : 0,
                      "sent" : 20000,
                      "meanServersUp" : 3.1,
                      "powerOffs" : 3,
                      "powerOns" : 3,
                      "meteredSeconds" : 30.001,
                      "poweredServerSecondsMin" : 90.0,
                      "poweredServerSecondsMax" : 95.5,
                      "meanResponseSeconds" : 0.25,
                      "savingsPercent" : 40.0
                    }
                  },
                  "simulated" : {
                    "off" : {
                      "savingsPercent" : 0.0,
                      "droppedPercent" : 0.0,
                      "meanServersOn" : 5.0
                    },
                    "queue" : {
                      "savingsPercent" : 39.5,
                      "droppedPercent" : 0.0,
                      "meanServersOn" : 3.0
                    }
                  },
                  "daySeconds" : 3600.0,
                  "timeScale" : 0.05,
                  "staticCapacityPerServer" : 19.87
                }""");
    }
}
