package org.arbiter.common.override;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.message.OperatorOverride;
import org.junit.jupiter.api.Test;

final class EffectiveClassTest {

    static final Instant T = Instant.parse("2026-11-22T10:00:00Z");
    static final ClassConfig PREMIUM = ClassConfig.builder("premium", 2).build();

    static OperatorOverride target(String id, Instant at, String cls, double seconds) {
        return new OperatorOverride(1, at, id, OperatorOverride.Kind.TARGET, null, cls, null, seconds, null, null, null,
                null, true, "t");
    }

    static OperatorOverride utility(String id, Instant at, Double phi, Double beta) {
        return new OperatorOverride(1, at, id, OperatorOverride.Kind.UTILITY, null, "premium", null, null, phi, null, beta,
                null, true, "t");
    }

    @Test
    void withoutOverridesForTheClass_itIsTheConfiguredClassItself() {
        assertThat(EffectiveClass.of(PREMIUM, List.of(target("x", T, "basic", 9)))).isSameAs(PREMIUM);
    }

    @Test
    void theNewestTargetWins_onEqualTimeTheLargerId_inAnyOrder() {
        List<OperatorOverride> set = new ArrayList<>(List.of(target("b", T, "premium", 1.5), target("a", T, "premium", 4),
                target("c", T.minusSeconds(1), "premium", 7)));
        for (int i = 0; i < 3; i++) {
            Collections.rotate(set, 1);
            assertThat(EffectiveClass.of(PREMIUM, set).targetSeconds()).as("order %s", set).isEqualTo(1.5);
            Collections.reverse(set);
            assertThat(EffectiveClass.of(PREMIUM, set).targetSeconds()).as("order %s", set).isEqualTo(1.5);
        }
    }

    @Test
    void aUtilityOverride_replacesOnlyTheParametersItCarries() {
        ClassConfig e = EffectiveClass.of(PREMIUM, List.of(utility("u", T, 3.0, null), utility("old", T.minusSeconds(5), null, 0.5)));
        assertThat(e.utility().phi()).isEqualTo(3.0);
        assertThat(e.utility().alpha()).isEqualTo(PREMIUM.utility().alpha());
        assertThat(e.utility().beta()).isEqualTo(PREMIUM.utility().beta()); // the older override lost entirely
        assertThat(e.targetSeconds()).isEqualTo(2.0);
    }

    @Test
    void aUtilityOverride_keepsTheClasssScale() {
        ClassConfig relative = ClassConfig.builder("premium", 2)
                .utility(new ClassConfig.UtilitySpec(1, 1, 1, ClassConfig.UtilitySpec.Scale.RELATIVE)).build();
        ClassConfig e = EffectiveClass.of(relative, List.of(utility("u", T, 3.0, null)));
        assertThat(e.utility()).isEqualTo(new ClassConfig.UtilitySpec(3, 1, 1, ClassConfig.UtilitySpec.Scale.RELATIVE));
    }
}
