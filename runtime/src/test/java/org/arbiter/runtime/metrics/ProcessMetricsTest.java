package org.arbiter.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

final class ProcessMetricsTest {

    public interface ProbeMBean {
        int getAnswer();
    }

    @Test
    void meters_reachPrometheusAndJmx_andMBeansAreUnregisteredOnClose() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName probe = new ObjectName("arbiter:type=Probe,id=t1");
        try (ProcessMetrics m = ProcessMetrics.create("test", "t1")) {
            m.registry().counter("arbiter.test.requests", "class", "premium").increment(3);
            assertThat(m.scrape()).contains("arbiter_test_requests_total{class=\"premium\",component=\"test\",id=\"t1\"} 3.0");
            assertThat(server.queryNames(new ObjectName("arbiter:*"), null))
                    .anySatisfy(n -> assertThat(n.toString()).contains("arbiterTestRequests"));
            m.registerMBean("type=Probe,id=t1", ProbeMBean.class, () -> 42);
            assertThat(server.getAttribute(probe, "Answer")).isEqualTo(42);
        }
        assertThat(server.isRegistered(probe)).isFalse();
    }
}
