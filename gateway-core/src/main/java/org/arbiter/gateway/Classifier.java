package org.arbiter.gateway;

/**
 * Sorts a request into a traffic class (003 §III-A). Implementations are immutable and thread-safe;
 * they live in {@code classify/}, with their factories in {@code classify.Classifiers}.
 */
@FunctionalInterface
public interface Classifier {

    /** The class name of {@code request}; never null. */
    String classify(RequestAttributes request);
}
