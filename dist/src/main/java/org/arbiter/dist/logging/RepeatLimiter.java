package org.arbiter.dist.logging;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;

/**
 * Decides which repeats of a log line are shown: the first line of a key (logger, level and
 * message template) is shown and opens a window; repeats within the window are counted, not
 * shown; the first repeat after the window is shown with the count of those held back, and opens
 * the next window.
 *
 * <p>Pure: time is passed in ({@code nowNanos}, any monotonic origin). At most {@code maxKeys}
 * keys are tracked; when that many are open, keys whose window is over are forgotten, and if
 * none is, a new key's lines are shown unlimited (never dropped for lack of room).
 *
 * <p>Thread-safe: {@link #offer} is synchronized (it is called once per warning, not per request).
 */
public final class RepeatLimiter {

    /** What to do with one line. */
    public sealed interface Decision {
        /** Show it; {@code heldBack} repeats were not shown since the previous shown one, {@code sinceNanos} ago. */
        record Show(long heldBack, long sinceNanos) implements Decision {
        }

        /** Hold it back (counted). */
        record HoldBack() implements Decision {
        }
    }

    private static final Decision.HoldBack HOLD_BACK = new Decision.HoldBack();

    private final long windowNanos;
    private final int maxKeys;
    private final Map<String, Window> windows = new HashMap<>();

    private static final class Window {
        long startNanos;
        long heldBack;

        Window(long startNanos) {
            this.startNanos = startNanos;
        }
    }

    public RepeatLimiter(Duration window, int maxKeys) {
        Objects.requireNonNull(window, "window");
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("window: " + window + " (expected: > 0)");
        }
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys: " + maxKeys + " (expected: >= 1)");
        }
        this.windowNanos = window.toNanos();
        this.maxKeys = maxKeys;
    }

    /** One line of {@code key} at {@code nowNanos}: show it (with what was held back) or hold it back. */
    public synchronized Decision offer(String key, long nowNanos) {
        Window w = windows.get(key);
        if (w == null) {
            if (windows.size() >= maxKeys) {
                forgetClosed(nowNanos);
                if (windows.size() >= maxKeys) {
                    return new Decision.Show(0, 0);
                }
            }
            windows.put(key, new Window(nowNanos));
            return new Decision.Show(0, 0);
        }
        long since = nowNanos - w.startNanos;
        if (since < windowNanos) {
            w.heldBack++;
            return HOLD_BACK;
        }
        Decision shown = new Decision.Show(w.heldBack, since);
        w.startNanos = nowNanos;
        w.heldBack = 0;
        return shown;
    }

    /** Keys tracked now (for tests). */
    synchronized int keys() {
        return windows.size();
    }

    private void forgetClosed(long nowNanos) {
        for (Iterator<Window> it = windows.values().iterator(); it.hasNext(); ) {
            Window w = it.next();
            if (nowNanos - w.startNanos >= windowNanos) {
                it.remove();
            }
        }
    }

    /**
     * The text appended to a shown line after {@code heldBack} repeats held back over
     * {@code sinceNanos}: empty for none, else {@code " (×275 in the last minute)"}, or
     * {@code "in the last 7 min"} / {@code "in the last 3 h"} when the previous shown line is older.
     */
    public static String suffix(long heldBack, long sinceNanos) {
        if (heldBack <= 0) {
            return "";
        }
        long seconds = Duration.ofNanos(sinceNanos).toSeconds();
        String span;
        if (seconds < 120) {
            span = "minute";
        } else if (seconds < 120 * 60) {
            span = (seconds / 60) + " min";
        } else {
            span = (seconds / 3600) + " h";
        }
        return " (×" + heldBack + " in the last " + span + ")";
    }
}
