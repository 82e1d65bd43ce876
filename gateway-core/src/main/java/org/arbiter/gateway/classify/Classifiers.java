package org.arbiter.gateway.classify;

import java.util.List;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.gateway.Classifier;

/**
 * The {@link Classifier}s: the static factories, kept beside the implementations so that the
 * contract imports none of them. Thread-safe.
 */
public final class Classifiers {

    private Classifiers() {
    }

    /**
     * The rules of {@code classes[].match}: the first class in file order whose rule matches, the
     * default class otherwise.
     */
    public static Classifier fromRules(List<ClassConfig> classes) {
        return RuleClassifier.of(classes);
    }
}
