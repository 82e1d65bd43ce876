package org.arbiter.runtime.netty;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

final class NettyDefaultsTest {

    private static final String KEY = "io.netty.leakDetection.samplingInterval";
    private String saved;

    @BeforeEach
    void save() {
        saved = System.getProperty(KEY);
    }

    @AfterEach
    void restore() {
        if (saved == null) {
            System.clearProperty(KEY);
        } else {
            System.setProperty(KEY, saved);
        }
    }

    @Test
    void unsetSamplingInterval_becomesOneIn4096() {
        System.clearProperty(KEY);
        NettyDefaults.apply();
        assertThat(System.getProperty(KEY)).isEqualTo("4096");
    }

    @Test
    void anOperatorsSamplingInterval_wins() {
        System.setProperty(KEY, "1");
        NettyDefaults.apply();
        assertThat(System.getProperty(KEY)).isEqualTo("1");
    }
}
