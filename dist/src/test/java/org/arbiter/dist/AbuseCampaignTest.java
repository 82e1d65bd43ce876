package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.arbiter.live.FaultCampaign;
import org.arbiter.live.abuse.AbuseCampaign;
import org.arbiter.live.abuse.AbuseReport;
import org.arbiter.live.abuse.AbuseSettings;
import org.arbiter.live.abuse.Attack;
import org.arbiter.live.abuse.Verdict;
import org.arbiter.sim.experiment.ResultJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI abuse campaign: {@code arbiter experiment abuse --quick --connections 50} against real
 * processes (a simserver, four gateways and a GRM, each its own JVM from this test's class path), the
 * broker, the attacker and the ordinary client in this JVM.
 *
 * <p>This asserts the mechanics only — every attack ran and was judged, the resources were sampled,
 * the ordinary client was answered without an attack, result.json holds every field. Whether the
 * attacks are refused is what the campaign measures (docs/reliability.md, "Abuse campaign"); assert
 * it per attack here as issue 30's fixes land.
 */
final class AbuseCampaignTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void quickCampaign_runsAndJudgesEveryAttack_underAnAnsweredOrdinaryClient() throws Exception {
        AbuseSettings settings = AbuseSettings.quick(FaultCampaign.javaLauncher(System.getProperty("java.class.path")), 50);
        AbuseReport report = AbuseCampaign.run(settings, dir, System.out::println);
        System.out.print(report.table());

        List<String> attacks = AbuseCampaign.attacks().stream().map(Attack::name).toList();
        assertThat(report.rows()).extracting(AbuseReport.Row::attack)
                .containsExactlyElementsOf(concat(List.of("none", "none", "none", "none"), attacks));
        for (AbuseReport.Row r : report.rows()) {
            String name = r.attack() + " on " + r.gateway();
            assertThat(r.error()).as(name + ": ran without an error").isEmpty();
            assertThat(r.resources().samples()).as(name + ": resources sampled").isGreaterThanOrEqualTo(3);
            assertThat(r.resources().baselineFds()).as(name + ": a descriptor baseline").isPositive();
            assertThat(r.resources().peakRssBytes()).as(name + ": an RSS peak").isPositive();
            assertThat(r.verdicts()).extracting(Verdict::criterion).as(name + ": the general verdicts")
                    .contains(Verdict.CLIENT_ANSWERED, Verdict.FDS_BACK, Verdict.MEMORY_BOUNDED);
            if (r.attack().equals("none")) {
                assertThat(r.clientDuring().sent()).as(name + ": the ordinary client ran").isPositive();
                assertThat(r.met(Verdict.CLIENT_ANSWERED)).as(name + ": answered without an attack: "
                        + r.clientDuring()).isTrue();
            } else {
                assertThat(r.outcome().attempted()).as(name + ": attempted something").isPositive();
                assertThat(r.outcome().refused() + r.outcome().accepted()).as(name + ": counted")
                        .isLessThanOrEqualTo(r.outcome().attempted());
                assertThat(r.verdicts()).extracting(Verdict::criterion).as(name + ": judged")
                        .contains(Verdict.ATTACK_REFUSED);
                assertThat(r.clientDuring().sent()).as(name + ": the ordinary client ran during it").isPositive();
            }
        }
        // Issue 30's fixes, decided on counts and order (not on the campaign's time bounds, which a
        // loaded CI machine can stretch): mutations without the token, or cross-origin with it, are
        // refused and change nothing; the 413 comes in its turn; a SIGHUP with the amplifying file
        // leaves the gateway serving on its old configuration.
        for (String attack : List.of("reload-flood", "admin-drain", "pipelined-413")) {
            AbuseReport.Row r = row(report, attack);
            assertThat(r.met(Verdict.ATTACK_REFUSED)).as(attack + ": refused: " + r.verdicts()).isTrue();
        }
        // One statistics record for g4 stamped 2099: the GRM counts it refused as future, and every
        // allocation of the 15 control periods after it still gives g4 its cap on s1
        AbuseReport.Row future = row(report, "future-stats");
        assertThat(future.met(Verdict.ATTACK_REFUSED)).as("future-stats: refused: " + future.verdicts()).isTrue();
        assertThat(future.met("g4 keeps its share")).as("future-stats: g4 keeps its share: " + future.verdicts()).isTrue();
        AbuseReport.Row amplifying = row(report, "amplifying-config");
        assertThat(amplifying.verdicts()).filteredOn(v -> v.criterion().startsWith("gateway keeps serving after SIGHUP"))
                .as("amplifying-config: the gateway keeps serving: " + amplifying.verdicts())
                .singleElement().matches(Verdict::met);
        // dispatch.tunnelShare: half of g3's 32 slots may hold upgrades, so of 50 some are answered 503
        // tunnelsFull at once, and none waits in a queue: every one gets an answer, 101 or 503
        AbuseReport.Row ws = row(report, "idle-websocket");
        java.util.Map<String, Integer> wsStatuses = ws.outcome().statuses();
        assertThat(wsStatuses.getOrDefault("503", 0)).as("idle-websocket: upgrades past the share refused: "
                + wsStatuses).isPositive();
        assertThat(wsStatuses.getOrDefault("101", 0) + wsStatuses.getOrDefault("503", 0))
                .as("idle-websocket: every upgrade answered, none queued: " + wsStatuses).isEqualTo(50);
        AbuseReport.Row idle = row(report, "idle-h2c");
        assertThat(idle.outcome().attempted()).as("idle-h2c: every connection counted").isEqualTo(50);
        AbuseReport.Row pipelined = report.rows().stream().filter(r -> r.attack().equals("pipelined-413")).findFirst()
                .orElseThrow();
        assertThat(pipelined.outcome().wire()).as("pipelined: answers read off the wire").isNotEmpty();

        JsonNode json = new ObjectMapper().readTree(ResultJson.toJson(report));
        assertThat(json.path("rows")).hasSize(report.rows().size());
        for (JsonNode row : json.path("rows")) {
            for (String field : List.of("attack", "what", "gateway", "outcome", "clientWithoutAttack", "clientDuring",
                    "clientAfter", "resources", "verdicts", "error")) {
                assertThat(row.has(field)).as(row.path("attack").asText() + ": result.json has " + field).isTrue();
            }
            for (String field : List.of("attempted", "refused", "accepted", "statuses", "wire", "details", "verdicts")) {
                assertThat(row.path("outcome").has(field)).as("outcome." + field).isTrue();
            }
            for (String field : List.of("sent", "answered", "statuses", "failures", "p99Millis")) {
                assertThat(row.path("clientDuring").has(field)).as("clientDuring." + field).isTrue();
            }
            for (String field : List.of("baselineRssBytes", "peakRssBytes", "afterRssBytes", "baselineFds", "peakFds",
                    "afterFds", "samples")) {
                assertThat(row.path("resources").has(field)).as("resources." + field).isTrue();
            }
            for (JsonNode v : row.path("verdicts")) {
                assertThat(v.has("criterion") && v.has("met") && v.has("measured")).as("a verdict's fields").isTrue();
            }
        }
        assertThat(report.table()).contains("| idle-h2c | g1 | 50 |").contains("| idle-h2-alpn | g2 | 50 |");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }

    private static AbuseReport.Row row(AbuseReport report, String attack) {
        return report.rows().stream().filter(r -> r.attack().equals(attack)).findFirst().orElseThrow();
    }
}
