package org.arbiter.grm.power;

import java.io.File;
import org.arbiter.grm.control.GrmCore.Seen;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.ServerState;

/**
 * {@code power.actuator: exec}: runs {@code power.command} through {@code sh -c}, with
 * {@code {server}} replaced by the server id and {@code {action}} by {@code on} or {@code off}
 * (server ids are letters, digits, '.', '_' and '-', so they are safe in a shell word). The
 * environment also carries {@code ARBITER_SERVER}, {@code ARBITER_ACTION}, {@code ARBITER_SERVER_URL}
 * and {@code ARBITER_ADMIN_URL}. Exit 0 is success; any other exit, or running past the timeout
 * (the process and its children are killed), is a failure that quotes the last 300 characters of
 * the command's stderr. If the last line the command prints on stdout is {@code on}/{@code up} or
 * {@code off}/{@code down}, that is what it saw of the server; otherwise nothing was observed and
 * the model's delays stand for the server.
 *
 * <p>Thread-safe: every call runs its own process.
 */
public final class ExecActuator implements PowerActuator {

    private static final int TAIL = 300;

    private final String template;
    private final Duration timeout;

    /**
     * @param template the command, with {@code {server}} and {@code {action}}
     * @param timeout  one run's limit
     */
    public ExecActuator(String template, Duration timeout) {
        this.template = requireNonNull(template, "template");
        this.timeout = requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
        }
    }

    /** The command line for one action. */
    public String commandFor(String server, ServerState action) {
        return template.replace("{server}", server).replace("{action}", PowerActuator.word(action));
    }

    @Override
    public Seen actuate(ServerConfig server, ServerState action) throws ActuationException, InterruptedException {
        String command = commandFor(server.id(), action);
        Path out = null;
        Path err = null;
        Process p = null;
        try {
            out = Files.createTempFile("arbiter-power-", ".out");
            err = Files.createTempFile("arbiter-power-", ".err");
            ProcessBuilder b = new ProcessBuilder(List.of("sh", "-c", command))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile());
            b.environment().put("ARBITER_SERVER", server.id());
            b.environment().put("ARBITER_ACTION", PowerActuator.word(action));
            b.environment().put("ARBITER_SERVER_URL", server.url().toString());
            b.environment().put("ARBITER_ADMIN_URL", server.adminUrl() == null ? "" : server.adminUrl().toString());
            p = b.start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(p);
                throw new ActuationException("'" + command + "' still running after " + seconds(timeout)
                        + " s (expected: done within power.timeout); killed" + stderr(err), Seen.UNKNOWN);
            }
            Seen seen = seen(out);
            int exit = p.exitValue();
            if (exit != 0) {
                throw new ActuationException("'" + command + "' exited " + exit + stderr(err), seen);
            }
            return seen;
        } catch (IOException e) {
            throw new ActuationException("'" + command + "' could not run: " + e.getMessage(), Seen.UNKNOWN);
        } catch (InterruptedException e) {
            if (p != null) {
                kill(p);
            }
            throw e;
        } finally {
            delete(out);
            delete(err);
        }
    }

    private static void kill(Process p) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
    }

    private static Seen seen(Path out) {
        String text = tail(out).strip();
        String last = text.substring(text.lastIndexOf('\n') + 1).strip().toLowerCase(Locale.ROOT);
        return switch (last) {
            case "on", "up" -> Seen.UP;
            case "off", "down" -> Seen.DOWN;
            default -> Seen.UNKNOWN;
        };
    }

    private static String stderr(Path err) {
        String t = tail(err).strip();
        return t.isEmpty() ? "" : ": " + t.replace('\n', ' ');
    }

    private static String tail(Path f) {
        try {
            byte[] b = Files.readAllBytes(f);
            String s = new String(b, Math.max(0, b.length - TAIL * 4), Math.min(b.length, TAIL * 4), StandardCharsets.UTF_8);
            return s.length() > TAIL ? s.substring(s.length() - TAIL) : s;
        } catch (IOException e) {
            return "";
        }
    }

    private static void delete(Path f) {
        if (f != null) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                // a temp file left behind is harmless
            }
        }
    }

    private static String seconds(Duration d) {
        return Double.toString(d.toMillis() / 1000.0);
    }

    @Override
    public String name() {
        return "exec";
    }
}
