package org.arbiter.sim.experiment;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The scale run's result. {@code wallSeconds}, {@code grmWallSeconds},
 * {@code grmMeanSecondsPerPeriod} and {@code simulatedRequestsPerWallSecond} are wall-clock
 * measurements, {@code memory} the process's; everything else is fixed by the seed.
 *
 * @param flows          gateways × classes
 * @param slots          servers × N_s
 * @param controlPeriods the GRM steps run
 * @param poolSplit      with {@code --pools}: each pool's step time and its owner's (wall-clock); absent without
 */
public record ScaleResult(int gateways, int servers, int classes, int flows, int slots, double simulatedSeconds,
                          long simulatedRequests, double wallSeconds, int controlPeriods, double grmWallSeconds,
                          double grmMeanSecondsPerPeriod, long simulatedRequestsPerWallSecond, List<Phase> phases,
                          @JsonInclude(JsonInclude.Include.NON_NULL) PoolSplit poolSplit, Memory memory) {

    public ScaleResult {
        phases = List.copyOf(phases);
    }

    /**
     * The run split into pools (wall-clock figures, like {@code grmWallSeconds}).
     *
     * @param owners                     the simulated GRMs sharing the pools (range assignment)
     * @param secondsPerStepInAll        Σ over pools of the mean step time: one GRM owning every pool
     * @param secondsPerStepSlowestOwner the largest owner's Σ over its pools: the period the group needs
     */
    public record PoolSplit(int pools, int owners, double secondsPerStepInAll, double secondsPerStepSlowestOwner,
                            List<PoolStep> perPool) {
        public PoolSplit {
            perPool = List.copyOf(perPool);
        }
    }

    /**
     * The process's memory at the end of the run (depends on the JVM and its collector, like the wall clock).
     *
     * @param maxHeapMiB      the heap the JVM may grow to (-Xmx; by default a quarter of the machine's memory)
     * @param peakHeapUsedMiB the heap's peak occupancy, garbage included: the sum of its pools' peaks
     * @param peakRssMiB      the process's peak resident memory (Linux VmHWM; 0 where not known)
     */
    public record Memory(long maxHeapMiB, long peakHeapUsedMiB, long peakRssMiB) {

        /** This process's, now. */
        public static Memory now() {
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            return new Memory(Runtime.getRuntime().maxMemory() >> 20, peak >> 20, peakRssKiB() >> 10);
        }

        private static long peakRssKiB() {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                    if (line.startsWith("VmHWM:")) {
                        return Long.parseLong(line.replaceAll("[^0-9]", ""));
                    }
                }
            } catch (IOException | RuntimeException e) {
                return 0; // not Linux, or not readable: unknown
            }
            return 0;
        }
    }

    /** One pool: its size, its owner (1..owners), its GRM wall time in all and per step. */
    public record PoolStep(String pool, int servers, int classes, int owner, double grmWallSeconds,
                           double secondsPerStep) {
    }

    /**
     * One load phase, all classes together.
     *
     * @param worstClassMeanResponseSeconds the highest of the classes' mean response times
     * @param predictionError               the GRM's flow-model error over the phase, every flow (predictions
     *                                      made once the phase's first statistics window has passed)
     */
    public record Phase(String name, long sent, long ok, long rejected, double throughputPerSecond,
                        double worstClassMeanResponseSeconds, PredictionError predictionError) {
    }
}
