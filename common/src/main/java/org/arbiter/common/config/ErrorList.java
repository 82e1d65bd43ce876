package org.arbiter.common.config;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;

/**
 * The problems of one read, bounded while they are collected: the first
 * {@link ConfigException#MAX_ERRORS} lines are kept, each cut to
 * {@link ConfigException#MAX_LINE_CHARS}; later ones are only counted ({@link #dropped()}). So a
 * file that produces a million problems holds fifty lines, not a million.
 *
 * <p>Not thread-safe; one per read.
 */
final class ErrorList extends AbstractList<String> {

    private final List<String> kept = new ArrayList<>();
    private long dropped;

    @Override
    public boolean add(String line) {
        if (kept.size() < ConfigException.MAX_ERRORS) {
            kept.add(ConfigException.cut(line));
        } else {
            dropped++;
        }
        return true;
    }

    @Override
    public String get(int index) {
        return kept.get(index);
    }

    @Override
    public int size() {
        return kept.size();
    }

    /** Adds {@code other}'s lines, and its count of lines not kept when it is an ErrorList too. */
    void absorb(List<String> other) {
        addAll(other);
        if (other instanceof ErrorList e) {
            dropped += e.dropped;
        }
    }

    /** Problems found beyond the ones kept. */
    long dropped() {
        return dropped;
    }

    /** Whether any problem was found (kept or not). */
    boolean any() {
        return !kept.isEmpty() || dropped > 0;
    }

    /** The exception listing them (the kept lines and a count of the rest). */
    ConfigException exception() {
        return new ConfigException(kept, dropped);
    }
}
