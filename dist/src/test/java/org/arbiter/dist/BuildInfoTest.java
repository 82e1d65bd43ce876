package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code arbiter --version}: the build's version and the git commit it was built from. */
final class BuildInfoTest {

    @Test
    void version_printsTheProjectVersion_andTheCommitOfThisCheckout() throws Exception {
        StringWriter out = new StringWriter();
        int code = Main.run(new String[] {"--version"}, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));
        assertThat(code).isZero();
        String first = out.toString().lines().findFirst().orElseThrow();
        assertThat(first).matches("arbiter \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit ([0-9a-f]{12}(-dirty)?|unknown)\\)");
        assertThat(out.toString()).contains("Java " + System.getProperty("java.version"));

        String head = git("rev-parse", "--short=12", "HEAD");
        if (head != null) { // built from a git checkout (as in CI): the commit is that checkout's
            assertThat(BuildInfo.current().commit()).startsWith(head);
        }
    }

    @Test
    void unfilledOrMissingValues_readUnknown() {
        Properties p = new Properties();
        p.setProperty("version", "${project.version}");
        assertThat(BuildInfo.of(p)).isEqualTo(new BuildInfo("unknown", "unknown"));
        p.setProperty("version", "1.2.3");
        p.setProperty("commit", "unknown");
        assertThat(BuildInfo.of(p).line()).isEqualTo("arbiter 1.2.3 (commit unknown)");
        p.setProperty("commit", "0123456789ab");
        assertThat(BuildInfo.of(p).line()).isEqualTo("arbiter 1.2.3 (commit 0123456789ab)");
    }

    /** git's answer in the module's directory, or null without git or a checkout. */
    private static String git(String... args) throws InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "git";
        System.arraycopy(args, 0, cmd, 1, args.length);
        try {
            Process p = new ProcessBuilder(cmd).directory(Path.of("").toAbsolutePath().toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 && !out.isEmpty() ? out : null;
        } catch (IOException e) {
            return null;
        }
    }
}
