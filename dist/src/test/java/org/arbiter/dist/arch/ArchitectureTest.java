package org.arbiter.dist.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.net.URISyntaxException;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.message.Message;
import org.arbiter.console.server.Console;
import org.arbiter.dist.Main;
import org.arbiter.dist.arch.fixture.InterfaceWithItsImplementation;
import org.arbiter.dist.arch.fixture.NettyInACore;
import org.arbiter.dist.arch.fixture.WallClockInACore;
import org.arbiter.dist.arch.fixture.a.RoundTrip;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.grm.control.GrmCore;
import org.arbiter.grm.service.GrmService;
import org.arbiter.live.FaultCampaign;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.runtime.metrics.MetricsServer;
import org.arbiter.sim.cli.SimCommand;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/*
 * The module boundaries, checked on the bytecode of every main module (each found by the jar or class
 * directory one of its classes was loaded from, so a package split across a core and its service module
 * is told apart by where the class lives, not by its name):
 *
 *  - the cores (gateway-core, grm-core) depend on common and themselves only: no Netty, Kafka, java.net
 *    or other socket API, no other Arbiter module, and never read the wall clock (System.currentTimeMillis,
 *    System.nanoTime, Instant.now, Clock.system*, ...; a method reference such as System::nanoTime counts);
 *  - sim depends on the cores, never on the gateway or GRM service modules;
 *  - no import circle between packages, anywhere; no interface depends on an implementation of itself that lives in
 *    another package (its factory belongs beside the implementations; nested records of a sealed type are fine).
 *
 * Each rule is also run on a deliberately broken fixture (dist/arch/fixture) and must fail there, naming the
 * offending dependency: a rule that cannot fail checks nothing.
 */
class ArchitectureTest {

    private static final Set<String> SOCKETS_AND_BUSES =
            Set.of("io.netty..", "org.apache.kafka..", "java.net..", "javax.net..", "com.sun.net..", "java.nio.channels..");

    /** Owner and method names that read the wall clock (or sleep on it). */
    private static final Map<String, Set<String>> WALL_CLOCK = Map.of(
            "java.lang.System", Set.of("currentTimeMillis", "nanoTime"),
            "java.lang.Thread", Set.of("sleep"),
            "java.time.Instant", Set.of("now"),
            "java.time.LocalDateTime", Set.of("now"),
            "java.time.OffsetDateTime", Set.of("now"),
            "java.time.ZonedDateTime", Set.of("now"),
            "java.time.LocalDate", Set.of("now"),
            "java.time.Clock", Set.of("systemUTC", "systemDefaultZone", "system"));

    private static JavaClasses common;
    private static JavaClasses gatewayCore;
    private static JavaClasses grmCore;
    private static JavaClasses sim;
    private static JavaClasses services;
    private static JavaClasses all;

    @BeforeAll
    static void importModules() {
        common = importOf(Message.class);
        gatewayCore = importOf(GatewayCore.class);
        grmCore = importOf(GrmCore.class);
        sim = importOf(SimCommand.class);
        services = importOf(org.arbiter.gateway.server.Gateway.class, GrmService.class);
        all = importOf(Message.class, MetricsServer.class, KafkaBus.class, EmbeddedKafka.class, GatewayCore.class,
                GrmCore.class, org.arbiter.gateway.server.Gateway.class, GrmService.class, LoadGenerator.class,
                Console.class, SimCommand.class, FaultCampaign.class, Main.class);
    }

    // ---------------------------------------------------------------- the cores

    @Test
    void gatewayCore_usesNoSocketBusOrWallClock_andNoArbiterModuleButCommon() {
        assertThat(gatewayCore.size()).as("classes found in gateway-core").isGreaterThan(20);
        coreRule(union(common, gatewayCore)).check(gatewayCore);
    }

    @Test
    void grmCore_usesNoSocketBusOrWallClock_andNoArbiterModuleButCommon() {
        assertThat(grmCore.size()).as("classes found in grm-core").isGreaterThan(40);
        coreRule(union(common, grmCore)).check(grmCore);
    }

    @Test
    void theCoreRule_failsOnANettyImport_andOnAWallClockRead() {
        ArchRule rule = coreRule(union(common, gatewayCore));
        assertThatThrownBy(() -> rule.check(new ClassFileImporter().importClasses(NettyInACore.class)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("io.netty.buffer.Unpooled");
        assertThatThrownBy(() -> rule.check(new ClassFileImporter().importClasses(WallClockInACore.class)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("System.currentTimeMillis").hasMessageContaining("System.nanoTime")
                .hasMessageContaining("Instant.now");
    }

    // ---------------------------------------------------------------- sim

    @Test
    void sim_dependsOnTheCores_neverOnTheServiceModules() {
        Set<String> serviceClasses = names(services);
        noClasses().should().dependOnClassesThat(in(serviceClasses, "classes of the gateway or GRM service modules"))
                .check(sim);
    }

    // ---------------------------------------------------------------- circles

    @Test
    void noPackageCircles() {
        slices().matching("org.arbiter.(**)").should().beFreeOfCycles().check(all);
    }

    @Test
    void noInterfaceDependsOnItsImplementations() {
        interfacesDoNotKnowTheirImplementations().check(all);
    }

    @Test
    void theCircleRules_failOnACircle() {
        JavaClasses broken = new ClassFileImporter().importPackagesOf(RoundTrip.class,
                org.arbiter.dist.arch.fixture.b.Back.class);
        assertThatThrownBy(() -> slices().matching("org.arbiter.dist.arch.fixture.(*)..").should().beFreeOfCycles()
                .check(broken)).isInstanceOf(AssertionError.class).hasMessageContaining("Cycle");
        assertThatThrownBy(() -> interfacesDoNotKnowTheirImplementations()
                .check(new ClassFileImporter().importPackagesOf(InterfaceWithItsImplementation.class,
                        org.arbiter.dist.arch.fixture.impl.Implementation.class)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("InterfaceWithItsImplementation");
    }

    // ---------------------------------------------------------------- rules

    private static ArchRule coreRule(Set<String> allowed) {
        DescribedPredicate<JavaClass> otherArbiter = DescribedPredicate.describe("Arbiter classes outside common and this core",
                c -> c.getName().startsWith("org.arbiter.") && !allowed.contains(c.getName()) && !isFixture(c));
        return noClasses().should().dependOnClassesThat().resideInAnyPackage(SOCKETS_AND_BUSES.toArray(String[]::new))
                .orShould().dependOnClassesThat(otherArbiter)
                .orShould(readTheWallClock())
                .because("a core is driven identically by the services and the simulator: time is passed in");
    }

    private static ArchCondition<JavaClass> readTheWallClock() {
        return new ArchCondition<>("read the wall clock") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                for (JavaAccess<?> a : c.getAccessesFromSelf()) {
                    String owner = a.getTargetOwner().getName();
                    Set<String> methods = WALL_CLOCK.get(owner);
                    if (methods != null && methods.contains(a.getName())) {
                        events.add(SimpleConditionEvent.satisfied(a, a.getDescription()));
                    }
                }
            }
        };
    }

    private static ArchRule interfacesDoNotKnowTheirImplementations() {
        return com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes().that().areInterfaces()
                .should(new ArchCondition<JavaClass>("not depend on their own implementations in other packages (factories go in a class of their own, beside the implementations)") {
                    @Override
                    public void check(JavaClass i, ConditionEvents events) {
                        for (Dependency d : i.getDirectDependenciesFromSelf()) {
                            JavaClass target = d.getTargetClass();
                            if (!target.equals(i) && !target.isInterface() && target.isAssignableTo(i.getName())
                                    && !target.getPackageName().equals(i.getPackageName())) {
                                events.add(SimpleConditionEvent.violated(d, i.getName() + " depends on its implementation "
                                        + target.getName() + ": " + d.getDescription()));
                            }
                        }
                    }
                });
    }

    private static DescribedPredicate<JavaClass> in(Set<String> names, String description) {
        return DescribedPredicate.describe(description, c -> names.contains(c.getName()));
    }

    private static boolean isFixture(JavaClass c) {
        return c.getPackageName().startsWith("org.arbiter.dist.arch.fixture");
    }

    private static Set<String> names(JavaClasses classes) {
        return classes.stream().map(JavaClass::getName).collect(Collectors.toCollection(java.util.HashSet::new));
    }

    private static Set<String> union(JavaClasses a, JavaClasses b) {
        Set<String> both = names(a);
        both.addAll(names(b));
        return both;
    }

    /** Every class of the modules the given classes were loaded from (their jars or class directories). */
    private static JavaClasses importOf(Class<?>... anchors) {
        Set<Location> locations = new LinkedHashSet<>();
        for (Class<?> anchor : anchors) {
            try {
                locations.add(Location.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI()));
            } catch (URISyntaxException e) {
                throw new IllegalStateException(anchor.getName(), e);
            }
        }
        return new ClassFileImporter().importLocations(locations);
    }
}
