package org.arbiter.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.arbiter.gateway.DrainReport;
import org.arbiter.gateway.server.Gateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The campaign reads a SIGTERMed gateway's drain from the line the gateway itself logs. */
final class FaultReportDrainTest {

    @TempDir
    Path dir;

    @Test
    void theGatewaysOwnDrainLine_parses_andSaysWhetherEverythingReadWasAnswered() {
        String line = "12:00:00.000 INFO  Gateway - gateway g1: "
                + Gateway.describe(new DrainReport(3, 4, 7, 0, 0, 250_000_000L));
        FaultReport.Drain d = FaultReport.Drain.parse(line);
        assertThat(d).isEqualTo(new FaultReport.Drain(3, 4, 7, 0, 0));
        assertThat(d.answeredAll()).isTrue();
        // one held request answered 503 at the deadline, or one cut mid-response, or one unaccounted: not all answered
        assertThat(FaultReport.Drain.parse(Gateway.describe(new DrainReport(3, 4, 6, 1, 0, 1))).answeredAll()).isFalse();
        assertThat(FaultReport.Drain.parse(Gateway.describe(new DrainReport(3, 4, 6, 0, 1, 1))).answeredAll()).isFalse();
        assertThat(FaultReport.Drain.parse(Gateway.describe(new DrainReport(3, 4, 6, 0, 0, 1))).answeredAll()).isFalse();
        assertThat(FaultReport.Drain.parse("gateway g1: published a last statistics report")).isNull();
    }

    @Test
    void lastDrain_takesTheLastLineOfTheLog_orNullWhenThereIsNone() throws Exception {
        Path log = dir.resolve("g1.log");
        Files.write(log, List.of("---- start 1 pid 10",
                "gateway g1: " + Gateway.describe(new DrainReport(1, 0, 1, 0, 0, 1)),
                "---- start 2 pid 11",
                "gateway g1: " + Gateway.describe(new DrainReport(2, 5, 7, 0, 0, 1))));
        assertThat(FaultCampaign.lastDrain(log)).isEqualTo(new FaultReport.Drain(2, 5, 7, 0, 0));
        Path none = dir.resolve("g2.log");
        Files.write(none, List.of("---- start 1 pid 12", "gateway g2: ready"));
        assertThat(FaultCampaign.lastDrain(none)).isNull();
        assertThat(FaultCampaign.lastDrain(dir.resolve("never-started.log"))).isNull();
    }
}
