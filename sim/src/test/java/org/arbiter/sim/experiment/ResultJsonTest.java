package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Pins result.json's format: every simulated experiment, run small at seed 1, is written exactly
 * as the golden file in {@code src/test/resources/results/} (key order, nesting, numbers as Java
 * prints them: {@code 1.0} for a double, {@code 1} for an int). The wall-clock figures are set
 * to 0 first, as they vary between runs. The goldens were checked against the maps the records
 * replaced (same tree, and the key order of the full runs' result.json at seed 1).
 *
 * <p>After an intended change of format or figures, regenerate them with
 * {@code -Dresults.update=true} and review the diff.
 */
final class ResultJsonTest {

    private static final Path GOLDEN = Path.of("src/test/resources/results");
    private static final Consumer<String> QUIET = s -> { };
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void concurrency() throws IOException {
        matchesGolden("concurrency", ResultJson.toJson(Experiments.concurrency(1, 20, QUIET)));
    }

    @Test
    void phases_withoutTheWallClockSpeed() throws IOException {
        PhasesResult r = Experiments.phases(1, 60, QUIET);
        matchesGolden("phases", ResultJson.toJson(new PhasesResult(r.phases(), 0)));
    }

    @Test
    void bursty() throws IOException {
        matchesGolden("bursty", ResultJson.toJson(BurstyExperiment.run(1, 2, QUIET)));
    }

    @Test
    void regions() throws IOException {
        matchesGolden("regions", ResultJson.toJson(Experiments.regions(1, 30, QUIET)));
    }

    @Test
    void capacity() throws IOException {
        matchesGolden("capacity", ResultJson.toJson(CapacityExperiment.run(1, 40, QUIET)));
    }

    @Test
    void admission() throws IOException {
        matchesGolden("admission", ResultJson.toJson(AdmissionExperiment.run(1, 40, QUIET)));
    }

    @Test
    void fluid() throws IOException {
        matchesGolden("fluid", ResultJson.toJson(FluidExperiment.run(1, 30, 30, QUIET)));
    }

    @Test
    void energy_withSeeds_withoutTheWallClock() throws IOException {
        EnergyExperiment.Setup small = new EnergyExperiment.Setup(1200, 4, 0.2, 400, 10, 60, 5);
        EnergyResult r = EnergyExperiment.run(small, 1, List.of(EnergyPolicy.OFF, EnergyPolicy.STATIC, EnergyPolicy.QUEUE), new double[] {30, 60}, QUIET)
                .withSeeds(EnergyExperiment.seeds(small, 1, 2, QUIET));
        ObjectNode tree = MAPPER.valueToTree(r);
        assertThat(tree.get("setup").get("wallSeconds").isDouble()).isTrue();
        ((ObjectNode) tree.get("setup")).put("wallSeconds", 0.0);
        matchesGolden("energy", ResultJson.toJson(tree));
    }

    @Test
    void energy_withoutSeeds_hasNoSeedsKey() {
        EnergyExperiment.Setup tiny = new EnergyExperiment.Setup(600, 4, 0.2, 400, 10, 30, 5);
        JsonNode tree = MAPPER.valueToTree(EnergyExperiment.run(tiny, 1, List.of(EnergyPolicy.OFF), new double[0], QUIET));
        assertThat(tree.fieldNames()).toIterable().containsExactly("scenarios", "startupSweep", "shutdownSweep", "setup", "series");
    }

    @Test
    void scale_withoutTheWallClock() throws IOException {
        ObjectNode tree = MAPPER.valueToTree(ScaleExperiment.run(2, 4, 3, 120, 1, QUIET));
        tree.put("wallSeconds", 0.0);
        tree.put("grmWallSeconds", 0.0);
        tree.put("grmMeanSecondsPerPeriod", 0.0);
        tree.put("simulatedRequestsPerWallSecond", 0L);
        assertThat(tree.get("memory").get("maxHeapMiB").asLong()).isPositive();
        assertThat(tree.get("memory").get("peakHeapUsedMiB").asLong()).isPositive();
        tree.remove("memory"); // the process's, like the wall clock
        matchesGolden("scale", ResultJson.toJson(tree));
    }

    /** A tree and the record it came from are written alike, so masking through a tree hides nothing. */
    @Test
    void aTreeIsWrittenAsItsRecord() {
        AdmissionResult r = AdmissionExperiment.run(1, 20, QUIET);
        assertThat(ResultJson.toJson(MAPPER.valueToTree(r))).isEqualTo(ResultJson.toJson(r));
    }

    private static void matchesGolden(String name, String json) throws IOException {
        Path file = GOLDEN.resolve(name + ".json");
        if (Boolean.getBoolean("results.update")) {
            Files.writeString(file, json, StandardCharsets.UTF_8);
        }
        assertThat(json).as("result.json of " + name + " against " + file).isEqualTo(Files.readString(file));
    }
}
