package org.arbiter.grm;

import java.util.List;

/** A problem that breaks one or more rules, or has no feasible allocation; one line per problem. */
public final class ProblemException extends RuntimeException {

    private final List<String> errors;

    public ProblemException(List<String> errors) {
        super(String.join("\n", errors));
        this.errors = List.copyOf(errors);
    }

    public List<String> errors() {
        return errors;
    }
}
