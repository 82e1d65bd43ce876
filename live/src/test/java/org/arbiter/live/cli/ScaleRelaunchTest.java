package org.arbiter.live.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The large scale run starting itself again with the options the docs give. */
final class ScaleRelaunchTest {

    @Test
    void theChild_isThisJvmsOptionsAfterTheMissingOnes_thenMainWithTheArgumentsFromExperimentOn() {
        List<String> c = ScaleRelaunch.command("/j/bin/java", List.of("-XX:+UseTransparentHugePages", "-XX:+UseParallelGC"),
                List.of("-Xmx7g", "-Dx=y"), "/a/arbiter.jar",
                List.of("experiment", "scale", "--size", "large", "--out", "/tmp/o x"));
        assertThat(c).containsExactly("/j/bin/java", "-XX:+UseTransparentHugePages", "-XX:+UseParallelGC", "-Xmx7g",
                "-Dx=y", "-cp", "/a/arbiter.jar", "org.arbiter.dist.Main", "experiment", "scale", "--size", "large",
                "--out", "/tmp/o x");
        // the experiment command's own arguments (no root in front): "experiment" is put back
        assertThat(ScaleRelaunch.command("java", List.of(), List.of(), "cp", List.of("scale", "--out", "d")))
                .endsWith("org.arbiter.dist.Main", "experiment", "scale", "--out", "d");
    }

    @Test
    void belowTheLargeSizes_itRunsInPlace() {
        StringWriter text = new StringWriter();
        PrintWriter err = new PrintWriter(text);
        assertThat(ScaleRelaunch.ifWanted(new int[] {100, 1000, 20}, List.of("experiment", "scale"), err)).isEmpty();
        assertThat(ScaleRelaunch.ifWanted(new int[] {999, 1000, 20}, List.of("experiment", "scale"), err)).isEmpty();
        assertThat(text.toString()).isEmpty();
    }
}
