package org.arbiter.gateway;

import java.util.List;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.gateway.classify.RuleClassifier;

/**
 * Sorts a request into a traffic class (003 §III-A). Implementations are immutable and thread-safe.
 */
@FunctionalInterface
public interface Classifier {

    /** The class name of {@code request}; never null. */
    String classify(RequestAttributes request);

    /**
     * The rules of {@code classes[].match}: the first class in file order whose rule matches, the
     * default class otherwise.
     */
    static Classifier fromRules(List<ClassConfig> classes) {
        return RuleClassifier.of(classes);
    }
}
