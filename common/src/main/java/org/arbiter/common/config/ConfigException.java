package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/** A configuration that breaks one or more rules; {@link #errors()} has one line per problem. */
public final class ConfigException extends RuntimeException {

    private final List<String> errors;

    public ConfigException(List<String> errors) {
        super(String.join("\n", requireNonNull(errors, "errors")));
        this.errors = List.copyOf(errors);
    }

    /** One line per problem, each naming its YAML path and the rule, in file order. */
    public List<String> errors() {
        return errors;
    }
}
