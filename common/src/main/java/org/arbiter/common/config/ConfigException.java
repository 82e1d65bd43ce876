package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;

/**
 * A configuration that breaks one or more rules; {@link #errors()} has one line per problem.
 *
 * <p>Bounded (issue 30): at most {@link #MAX_ERRORS} lines of at most {@link #MAX_LINE_CHARS}
 * characters each are kept; a longer line is cut and ends with its length, and when there were more
 * problems a last line says how many were left out ({@code (and 950 more problems)}). So a file
 * that repeats one huge value in every field cannot make the message, or the memory that holds it,
 * grow with the number of problems.
 */
public final class ConfigException extends RuntimeException {

    /** Problems listed; the rest are counted in a last line. */
    public static final int MAX_ERRORS = 50;
    /** Characters of one problem line kept (values in it are already cut to {@link Node#SHOWN_CHARS}). */
    public static final int MAX_LINE_CHARS = 1_000;

    private final List<String> errors;

    public ConfigException(List<String> errors) {
        this(requireNonNull(errors, "errors"), 0);
    }

    /** @param dropped problems found but never kept by the caller ({@link ErrorList}) */
    ConfigException(List<String> errors, long dropped) {
        this(bounded(errors, dropped), null);
    }

    /** {@code bounded} is already cut and counted ({@code unused} only tells this constructor apart). */
    private ConfigException(List<String> bounded, Void unused) {
        super(String.join("\n", bounded));
        this.errors = bounded;
    }

    /** One line per problem, each naming its YAML path and the rule, in file order (bounded as above). */
    public List<String> errors() {
        return errors;
    }

    /**
     * The first {@link #MAX_ERRORS} of {@code errors}, each cut to {@link #MAX_LINE_CHARS}, and a last
     * line counting the ones left out ({@code alsoDropped} more were never kept by the caller).
     */
    static List<String> bounded(List<String> errors, long alsoDropped) {
        List<String> out = new ArrayList<>(Math.min(errors.size(), MAX_ERRORS) + 1);
        for (int i = 0; i < errors.size() && i < MAX_ERRORS; i++) {
            out.add(cut(errors.get(i)));
        }
        long more = errors.size() - out.size() + alsoDropped;
        if (more > 0) {
            out.add("(and " + more + " more problem" + (more == 1 ? "" : "s") + ")");
        }
        return List.copyOf(out);
    }

    /** {@code line} cut to {@link #MAX_LINE_CHARS}, with its length when cut. */
    static String cut(String line) {
        String l = String.valueOf(line);
        return l.length() <= MAX_LINE_CHARS ? l : l.substring(0, MAX_LINE_CHARS) + "… (" + l.length() + " chars)";
    }
}
