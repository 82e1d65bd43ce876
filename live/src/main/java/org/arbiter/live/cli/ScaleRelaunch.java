package org.arbiter.live.cli;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.arbiter.sim.experiment.ScaleExperiment;

/**
 * The scale run at the large sizes starts itself again in a JVM with the options that make it about 30 %
 * faster with the same results ({@link ScaleExperiment#missingJvmOptions}: 2 MB heap pages and the throughput
 * collector), so the documented one-line command is the fast one. The child gets this JVM's own options and
 * the same arguments, inherits the terminal, and its exit status is the command's. {@code --same-jvm}, a
 * JVM that has the options, or a child (marked by {@link #CHILD}) runs in place; so does a run whose child
 * cannot be started (said on stderr).
 */
final class ScaleRelaunch {

    /** Set in the child's environment: it never starts another. */
    static final String CHILD = "ARBITER_SCALE_RELAUNCHED";

    private ScaleRelaunch() {
    }

    /**
     * Relaunches when the size is large and options are missing.
     *
     * @param size G, S, C as {@code --size} gave them
     * @param args the command line as typed (from {@code experiment} on, or the whole of it)
     * @return the child's exit status, or empty to run in this JVM
     */
    static Optional<Integer> ifWanted(int[] size, List<String> args, PrintWriter err) {
        if ((long) size[0] * size[1] < ScaleExperiment.LARGE_CELLS || System.getenv(CHILD) != null) {
            return Optional.empty();
        }
        List<String> missing = ScaleExperiment.missingJvmOptions();
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        List<String> command = command(Path.of(System.getProperty("java.home"), "bin", "java").toString(), missing,
                ManagementFactory.getRuntimeMXBean().getInputArguments(), System.getProperty("java.class.path"), args);
        err.println("scale: " + size[0] + " × " + size[1] + ": starting again with " + String.join(" ", missing)
                + " (the same results, about 30 % less wall time; --same-jvm runs in this JVM)");
        err.flush();
        try {
            ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
            pb.environment().put(CHILD, "1");
            Process child = pb.start();
            Runtime.getRuntime().addShutdownHook(new Thread(child::destroy, "scale-child-stop"));
            return Optional.of(child.waitFor());
        } catch (IOException e) {
            err.println("scale: cannot start " + command.get(0) + " (" + e.getMessage() + "); running in this JVM");
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of(130);
        }
    }

    /**
     * The child's command: {@code java}, the missing options, this JVM's own options, the class path and
     * {@code org.arbiter.dist.Main} with the arguments as typed ({@code experiment …}).
     */
    static List<String> command(String java, List<String> missing, List<String> jvmArgs, String classPath,
                                List<String> args) {
        requireNonNull(args, "args");
        List<String> out = new ArrayList<>();
        out.add(requireNonNull(java, "java"));
        out.addAll(missing);
        out.addAll(jvmArgs);
        out.add("-cp");
        out.add(requireNonNull(classPath, "classPath"));
        out.add("org.arbiter.dist.Main");
        int from = args.indexOf("experiment");
        if (from < 0) {
            out.add("experiment"); // the experiment command's own arguments
        }
        out.addAll(from < 0 ? args : args.subList(from, args.size()));
        return List.copyOf(out);
    }
}
