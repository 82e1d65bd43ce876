package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

/**
 * The GRM's control loop.
 *
 * @param periodSeconds       control period Γ
 * @param reportPeriodSeconds how often gateways publish {@code GatewayStats}
 * @param statsWindowSeconds  sliding window the gateways average over
 * @param combine             sum (003 eq. 2a) or min (eq. 2b)
 * @param granularity         q: weights move in units of 1/q
 * @param minWeight           lower bound of every w(g,c)
 * @param responseTimeCap     predictions are clamped to this multiple of τ_c
 * @param prediction          mm1 (003 eq. 9) or queue-length (001)
 * @param gain                k of the queue-length feedback
 */
public record ControlConfig(double periodSeconds, double reportPeriodSeconds, double statsWindowSeconds,
                            String combine, int granularity, double minWeight, double responseTimeCap,
                            String prediction, double gain) {
    public ControlConfig {
        requireNonNull(combine, "combine");
        requireNonNull(prediction, "prediction");
    }
}
