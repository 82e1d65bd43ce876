package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import static java.util.Objects.requireNonNull;

/**
 * How power orders are carried out.
 *
 * @param actuator          log, exec or http
 * @param command           for exec: a template with {@code {server}} and {@code {action}}, or null
 * @param timeoutSeconds    one attempt's limit: the exec command's run time; for http, how long to wait
 *                          for the server to reach the state beyond the sizing start-up or shutdown delay
 * @param attempts          attempts per actuation before it is reported failed (≥ 1)
 * @param retryDelaySeconds back-off before the second attempt, doubling after each failure
 */
public record PowerConfig(Actuator actuator, String command, double timeoutSeconds, int attempts,
                          double retryDelaySeconds) {
    public PowerConfig {
        requireNonNull(actuator, "actuator");
        if (!(timeoutSeconds > 0)) {
            throw new IllegalArgumentException("timeout: " + timeoutSeconds + " (expected: > 0)");
        }
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts: " + attempts + " (expected: >= 1)");
        }
        if (!(retryDelaySeconds >= 0)) {
            throw new IllegalArgumentException("retryDelay: " + retryDelaySeconds + " (expected: >= 0)");
        }
    }

    /** The defaults: 60 s per attempt, 3 attempts, 1 s first back-off. */
    public PowerConfig(Actuator actuator, String command) {
        this(actuator, command, 60, 3, 1);
    }

    /** {@code power.actuator}: log, exec (with {@code command}) or http (every server's {@code adminUrl}). */
    public enum Actuator implements Choice {
        LOG("log"), EXEC("exec"), HTTP("http");

        private final String wireName;

        Actuator(String wireName) {
            this.wireName = wireName;
        }

        @JsonValue
        @Override
        public String wireName() {
            return wireName;
        }

        @Override
        public String toString() {
            return wireName;
        }
    }

    /**
     * Every default, as {@link ConfigLoader} applies them: the log actuator, 60 s per attempt, 3 attempts, 1 s
     * first back-off.
     */
    public static final PowerConfig DEFAULT = builder().build();

    /** A builder starting from the defaults (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().actuator(actuator).command(command).timeoutSeconds(timeoutSeconds).attempts(attempts)
                .retryDelaySeconds(retryDelaySeconds);
    }

    /**
     * Builds a {@link PowerConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private Actuator actuator = PowerSection.ACTUATOR.defaultValue();
        private String command = null;
        private double timeoutSeconds = PowerSection.TIMEOUT.defaultValue();
        private int attempts = PowerSection.ATTEMPTS.defaultValue();
        private double retryDelaySeconds = PowerSection.RETRY_DELAY.defaultValue();

        private Builder() {
        }

        /** {@code actuator}; default log. */
        public Builder actuator(Actuator actuator) {
            this.actuator = actuator;
            return this;
        }

        /** {@code command}, the exec template with {@code {server}} and {@code {action}}; default none. */
        public Builder command(String command) {
            this.command = command;
            return this;
        }

        /** {@code timeout}; default 60 s. */
        public Builder timeoutSeconds(double timeoutSeconds) {
            this.timeoutSeconds = timeoutSeconds;
            return this;
        }

        /** {@code attempts}; default 3. */
        public Builder attempts(int attempts) {
            this.attempts = attempts;
            return this;
        }

        /** {@code retryDelay}; default 1 s. */
        public Builder retryDelaySeconds(double retryDelaySeconds) {
            this.retryDelaySeconds = retryDelaySeconds;
            return this;
        }

        public PowerConfig build() {
            return new PowerConfig(actuator, command, timeoutSeconds, attempts, retryDelaySeconds);
        }
    }
}
