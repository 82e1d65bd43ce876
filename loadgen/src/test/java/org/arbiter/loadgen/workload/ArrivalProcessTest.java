package org.arbiter.loadgen.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

final class ArrivalProcessTest {

    static int count(ArrivalProcess a, double from, double to, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int n = 0;
        double t = from;
        while ((t = a.nextArrival(t, random)) < to) {
            n++;
        }
        return n;
    }

    @Test
    void poisson_hasItsRate_andExponentialGaps() {
        assertThat(count(ArrivalProcess.poisson(10), 0, 10_000, 1) / 10_000.0).isCloseTo(10, within(0.2));
        assertThat(count(ArrivalProcess.poisson(0), 0, 10, 1)).isZero();
    }

    @Test
    void paretoOnOff_sendsEveryIntervalWhileOn_atTheLongRunRateOnOverOnPlusOff() {
        // 001's source: shape 1.5, on 1 s, off 10 s, interval 100 ms → 10 req/s · 1/11 ≈ 0.91 req/s.
        // Shape 1.5 has infinite variance, so the long-run check uses many seeds and a wide band.
        double total = 0;
        for (long seed = 1; seed <= 20; seed++) {
            total += count(ArrivalProcess.paretoOnOff(1.5, 1, 10, 0.1, 0), 0, 20_000, seed);
        }
        assertThat(total / 20 / 20_000).isCloseTo(10.0 / 11, within(0.2));
        // Shape 3 converges well.
        assertThat(count(ArrivalProcess.paretoOnOff(3, 1, 10, 0.1, 0), 0, 100_000, 7) / 100_000.0)
                .isCloseTo(10.0 / 11, within(0.06));
        // It starts ON, at its start time, and sends on the interval grid.
        ArrivalProcess a = ArrivalProcess.paretoOnOff(1.5, 1000, 10, 0.1, 5);
        SplittableRandom random = new SplittableRandom(3);
        assertThat(a.nextArrival(0, random)).isEqualTo(5);
        assertThat(a.nextArrival(5, random)).isCloseTo(5.1, within(1e-9));
        assertThat(a.nextArrival(5.1, random)).isCloseTo(5.2, within(1e-9));
    }

    @Test
    void diurnal_startsAtTheTrough_peaksHalfWay_andAveragesTheMidpoint() {
        ArrivalProcess d = ArrivalProcess.diurnal(50, 10, 0, 600);
        assertThat(count(d, 0, 600, 1) / 600.0).isCloseTo(30, within(1.5));
        assertThat(count(ArrivalProcess.diurnal(50, 10, 0, 600), 0, 30, 2) / 30.0).isCloseTo(10.6, within(2.5));
        assertThat(count(ArrivalProcess.diurnal(50, 10, 0, 600), 285, 315, 3) / 30.0).isCloseTo(50, within(5.5));
        assertThat(ArrivalProcess.diurnalRate(50, 10, 0, 600, 300)).isCloseTo(50, within(1e-9));
    }

    @Test
    void thinkTime_isExponentialWithItsMean_andGivesTheClosedLoopLaw() {
        ThinkTime z = new ThinkTime(0.5);
        SplittableRandom random = new SplittableRandom(4);
        double sum = 0;
        for (int i = 0; i < 100_000; i++) {
            sum += z.nextRequest(10, random) - 10;
        }
        assertThat(sum / 100_000).isCloseTo(0.5, within(0.01));
        assertThat(new ThinkTime(0.1).throughputPerSecond(5, 0.1)).isCloseTo(25, within(1e-9));
        assertThat(new ThinkTime(0).nextRequest(3, random)).isEqualTo(3);
    }

    @Test
    void noisyDiurnal_keepsTheDaysMean_movesEachIntervalByItsSeedsFactor_andZeroNoiseIsTheSmoothDay() {
        // a long day, so the mean over it is the smooth day's (the factors average 1)
        double smooth = count(ArrivalProcess.diurnal(50, 10, 0, 60_000), 0, 60_000, 1) / 60_000.0;
        double noisy = count(ArrivalProcess.diurnal(50, 10, 0, 60_000, 0.1, 60, 42), 0, 60_000, 1) / 60_000.0;
        assertThat(smooth).isCloseTo(30, within(0.3));
        assertThat(noisy).isCloseTo(30, within(0.6));
        // one noise seed, one day: two arrival streams of it see the same factor in every interval (within 3 %,
        // Poisson noise at 120 000 arrivals an interval is 0.4 %); another noise seed moves some interval by > 10 %
        double maxSame = 0;
        double maxOther = 0;
        for (int k = 0; k < 10; k++) {
            double a = count(ArrivalProcess.diurnal(2000, 2000, 0, 600, 0.5, 60, 7), 60 * k, 60 * k + 60, 1);
            double b = count(ArrivalProcess.diurnal(2000, 2000, 0, 600, 0.5, 60, 7), 60 * k, 60 * k + 60, 2);
            double other = count(ArrivalProcess.diurnal(2000, 2000, 0, 600, 0.5, 60, 8), 60 * k, 60 * k + 60, 1);
            maxSame = Math.max(maxSame, Math.abs(a / b - 1));
            maxOther = Math.max(maxOther, Math.abs(a / other - 1));
        }
        assertThat(maxSame).isLessThan(0.03);
        assertThat(maxOther).isGreaterThan(0.10);
        // σ = 0 draws exactly what the smooth day draws
        assertThat(count(ArrivalProcess.diurnal(50, 10, 0, 600, 0, 60, 42), 0, 600, 5))
                .isEqualTo(count(ArrivalProcess.diurnal(50, 10, 0, 600), 0, 600, 5));
    }
}
