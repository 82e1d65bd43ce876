package org.arbiter.runtime.netty;

/**
 * Netty settings a production process starts with, applied at the start of {@code main} before any Netty class
 * loads, each only where the operator did not set the property ({@code -D...}): an operator's choice always wins.
 *
 * <p>{@code io.netty.leakDetection.samplingInterval} 4096 (Netty's own default is 128): the SIMPLE leak detector
 * stays on, but records the allocation trace (a {@code Throwable} with a stack) of one buffer in 4096, not one in 128.
 * At 50 000 requests/s that trace took about 1 % of the gateway's CPU (docs/performance.md); a leak on every request
 * is still reported within seconds, a rare one later. Tests run with {@code paranoid} (every buffer tracked).
 */
public final class NettyDefaults {

    /** One buffer in this many has its allocation traced by the SIMPLE leak detector. */
    public static final int LEAK_SAMPLING_INTERVAL = 4096;

    private NettyDefaults() {
    }

    /** Sets each default the operator did not set; call first thing in {@code main}. */
    public static void apply() {
        setIfAbsent("io.netty.leakDetection.samplingInterval", Integer.toString(LEAK_SAMPLING_INTERVAL));
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
