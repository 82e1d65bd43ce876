package org.arbiter.grm.sizing;

import java.util.ArrayDeque;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.SizingConfig;

/**
 * λ̂ and the load a power-off must carry (000 §7.5). λ̂ (sizing.forecast): trend = the total
 * arrival rate extrapolated T_c = startupDelay ahead by a least-squares line over the last
 * max(T_c, 3 periods, 16 statistics windows) when the slope stands out of the noise, else the
 * window's mean level (RateForecast); current = the measured rate. The power-off load is the highest
 * rate of the last start-up + shutdown delay, or the trend line's level while the load falls by
 * more than its noise. Not thread-safe.
 */
final class LoadForecast {

    /** Statistics windows the λ̂ trend line is fitted over. */
    static final int FORECAST_WINDOWS = 16;

    private final SizingConfig sizing;
    private final RateForecast trend;
    private double last;
    /** (time, rate) over the last break-even time, for the power-off rule. */
    private final ArrayDeque<double[]> recentRates = new ArrayDeque<>();

    LoadForecast(ClusterConfig config) {
        this.sizing = config.sizing();
        // the line is fitted over FORECAST_WINDOWS statistics windows (each rate is counted over one:
        // that many independent samples), at least T_c and three periods
        double w = config.control().statsWindowSeconds();
        double period = config.control().periodSeconds();
        this.trend = new RateForecast(
                Math.max(Math.max(sizing.startupDelaySeconds(), 3 * period), FORECAST_WINDOWS * w),
                sizing.startupDelaySeconds(), w / period, w);
    }

    /** This period's measured rate; returns λ̂. */
    double update(double nowSeconds, double rate) {
        double t = trend.update(nowSeconds, rate);
        last = sizing.forecast() == SizingConfig.Forecast.CURRENT ? rate : t;
        return last;
    }

    /** λ̂ at the last update, req/s. */
    double forecast() {
        return last;
    }

    /**
     * The load the servers left on must carry for one to go off: the highest rate measured over the
     * last break-even time (start-up + shutdown delay) — not one window's dip — unless the load is
     * falling by more than its noise: then the trend line's level now. Records {@code rate}.
     */
    double offLoad(double nowSeconds, double rate) {
        recentRates.addLast(new double[] {nowSeconds, rate});
        double horizon = sizing.startupDelaySeconds() + sizing.shutdownDelaySeconds();
        while (!recentRates.isEmpty() && recentRates.peekFirst()[0] < nowSeconds - horizon) {
            recentRates.removeFirst();
        }
        double peak = recentRates.stream().mapToDouble(x -> x[1]).max().orElse(rate);
        return trend.falling() ? trend.level() : peak;
    }
}
