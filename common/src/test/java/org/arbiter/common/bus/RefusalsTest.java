package org.arbiter.common.bus;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** Refused records: every one counted by reason, one log line per reason per minute. */
final class RefusalsTest {

    final List<String> lines = new ArrayList<>();
    final Logger log = (Logger) Proxy.newProxyInstance(Logger.class.getClassLoader(), new Class<?>[] {Logger.class},
            (proxy, method, args) -> {
                if (method.getName().equals("warn")) {
                    lines.add(Arrays.deepToString(args));
                }
                return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
            });
    final AtomicLong nanos = new AtomicLong();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final Refusals refusals = new Refusals(registry, "t.allocation", log, nanos::get);

    @Test
    void everyRefusalIsCounted_byReason_butLoggedOncePerReasonPerMinute() {
        for (int i = 0; i < 1000; i++) {
            refusals.refuse("stale", "record " + i);
        }
        refusals.refuse("implausible-epoch", "far future");
        refusals.refuseQuietly("other-gateway");
        assertThat(registry.get("arbiter.bus.refused").tag("topic", "t.allocation").tag("reason", "stale").counter().count())
                .isEqualTo(1000);
        assertThat(refusals.counts()).containsEntry("stale", 1000L).containsEntry("implausible-epoch", 1L)
                .containsEntry("other-gateway", 1L);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).contains("stale", "record 0");
        nanos.addAndGet(Refusals.LOG_INTERVAL_NANOS);
        refusals.refuse("stale", "record 1000");
        assertThat(lines).hasSize(3);
        assertThat(lines.get(2)).contains("record 1000", "and 999 more since the last line");
    }
}
