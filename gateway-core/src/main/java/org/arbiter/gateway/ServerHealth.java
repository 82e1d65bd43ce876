package org.arbiter.gateway;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.function.Consumer;
import org.arbiter.common.config.DispatchConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Passive ejection of failing servers, half-open trials, active probes (issue #15).
 *
 * States:   UP        takes traffic up to N(g,s).
 *           DOWN      ejected until downUntil; takes nothing.
 *           HALF_OPEN the backoff has passed: admits ONE trial request (or, with an active health
 *                     check, none: the next passing probe is the trial).
 * Events:   success(s)  a response head arrived (status < 500) or a probe passed.
 *           failure(s)  a refused or timed-out connect, a reset, a 5xx, a backend timeout, a
 *                       failed probe. A clean close of a reused keep-alive connection is not a
 *                       failure (the server may close an idle connection at any moment).
 * Rules:    UP:        failures in a row >= threshold → DOWN (one transition, logged once).
 *                      a success resets the count.
 *           DOWN:      events are ignored (late answers of requests sent before the ejection);
 *                      at downUntil → HALF_OPEN.
 *           HALF_OPEN: success → UP; failure → DOWN with the next, longer backoff. GatewayCore
 *                      reports a success here only from the trial (or a probe): an answer to a
 *                      request sent before the ejection says nothing about the server since.
 * Backoff:  the k-th ejection in a row lasts min(max, base · 2^k); k returns to 0 once the server
 *           has stayed UP for max (so a server that flaps is kept out longer and longer, one that
 *           recovered starts afresh).
 * Held:     hold(s, t) is the simulator's model of a refused connection: DOWN for the base backoff
 *           and then UP at once, without a trial (so the simulator's figures keep their meaning).
 *
 * Time:     passed in (nowNanos), never read. Threads: none; confined to the core's thread.
 */

/**
 * The health of a gateway's servers as that gateway sees them: consecutive failures, ejection with
 * a growing backoff, half-open trials and active-probe verdicts. See the design note in the source.
 * Each UP↔DOWN transition is reported once to the listener, with the failure that caused it.
 *
 * <p>Not thread-safe: owned by one {@link GatewayCore} and driven on its thread. {@link #isUpNow},
 * {@link #downTransitions} and {@link #upTransitions} may be read from other threads (gauges),
 * with no guarantee of freshness.
 */
public final class ServerHealth {

    private static final Logger LOG = LoggerFactory.getLogger(ServerHealth.class);

    /** Where a server is in the ejection cycle. */
    public enum State { UP, DOWN, HALF_OPEN }

    /** What went wrong on a server, in the words of the log line. */
    public enum Failure {
        CONNECT_REFUSED("connection refused", true),
        CONNECT_TIMEOUT("connect timeout", true),
        RESET("connection reset", true),
        /** The server closed a fresh connection before answering. */
        CLOSED("connection closed before a response", true),
        /** The server closed a reused keep-alive connection: the ordinary keep-alive race, not counted. */
        KEEP_ALIVE_CLOSED("keep-alive connection closed", false),
        SERVER_ERROR("5xx response", true),
        TIMEOUT("backend timeout", true),
        PROBE("health check failed", true);

        private final String text;
        private final boolean counts;

        Failure(String text, boolean counts) {
            this.text = text;
            this.counts = counts;
        }

        /** The words of the log line ({@code server s1 down: connection refused (3 in a row)}). */
        public String text() {
            return text;
        }

        /** Whether it counts toward ejection. */
        public boolean counts() {
            return counts;
        }
    }

    /**
     * One UP↔DOWN change, reported once.
     *
     * @param server   the server's index
     * @param serverId its id
     * @param up       true when it came back
     * @param cause    the failure that ejected it (null when it came back)
     * @param inARow   the consecutive failures that ejected it (0 when it came back)
     * @param backoffNanos how long it stays out before a trial (0 when it came back)
     * @param nowNanos when
     */
    public record Transition(int server, String serverId, boolean up, Failure cause, int inARow, long backoffNanos,
                             long nowNanos) {
        /** {@code server s1 down: connection refused (3 in a row)} or {@code server s1 up}. */
        public String message() {
            if (up) {
                return "server " + serverId + " up";
            }
            return "server " + serverId + " down: " + cause.text() + " (" + inARow + " in a row)";
        }
    }

    private String[] ids;
    private final int threshold;
    private final long baseNanos;
    private final long maxNanos;
    private boolean[] probeTrial;
    private State[] state;
    private int[] failures;
    private int[] ejections;
    private long[] downUntil;
    private long[] upSince;
    private boolean[] trialOut;
    private boolean[] held;
    private long[] downs;
    private long[] ups;
    private boolean[] upFlag;
    /** Bit s: server s's stored state is not UP (the only servers a snapshot must look at for health). */
    private long[] notUp;
    private Consumer<Transition> listener = t -> { };

    /**
     * @param ids        server ids by index
     * @param ejection   threshold and backoffs
     * @param probeTrial per server: true when an active health check decides the half-open trial
     */
    public ServerHealth(String[] ids, DispatchConfig.Ejection ejection, boolean[] probeTrial) {
        this.ids = ids.clone();
        requireNonNull(ejection, "ejection");
        this.threshold = ejection.threshold();
        this.baseNanos = Math.max(1, (long) (ejection.baseBackoffSeconds() * 1e9));
        this.maxNanos = Math.max(baseNanos, (long) (ejection.maxBackoffSeconds() * 1e9));
        if (probeTrial.length != ids.length) {
            throw new IllegalArgumentException("probeTrial: " + probeTrial.length + " entries (expected: " + ids.length + ")");
        }
        this.probeTrial = probeTrial.clone();
        int n = ids.length;
        state = new State[n];
        Arrays.fill(state, State.UP);
        failures = new int[n];
        ejections = new int[n];
        downUntil = new long[n];
        upSince = new long[n];
        Arrays.fill(upSince, Long.MIN_VALUE / 2);
        trialOut = new boolean[n];
        held = new boolean[n];
        downs = new long[n];
        ups = new long[n];
        upFlag = new boolean[n];
        Arrays.fill(upFlag, true);
        notUp = new long[(n + 63) >>> 6];
    }

    /**
     * Adds server {@code id} at the next index (a configuration reload added it): UP, no failures.
     *
     * @param probe an active health check decides its half-open trial
     */
    public void addServer(String id, boolean probe) {
        int n = ids.length + 1;
        ids = Arrays.copyOf(ids, n);
        ids[n - 1] = requireNonNull(id, "id");
        probeTrial = Arrays.copyOf(probeTrial, n);
        probeTrial[n - 1] = probe;
        state = Arrays.copyOf(state, n);
        state[n - 1] = State.UP;
        failures = Arrays.copyOf(failures, n);
        ejections = Arrays.copyOf(ejections, n);
        downUntil = Arrays.copyOf(downUntil, n);
        upSince = Arrays.copyOf(upSince, n);
        upSince[n - 1] = Long.MIN_VALUE / 2;
        trialOut = Arrays.copyOf(trialOut, n);
        held = Arrays.copyOf(held, n);
        downs = Arrays.copyOf(downs, n);
        ups = Arrays.copyOf(ups, n);
        upFlag = Arrays.copyOf(upFlag, n);
        upFlag[n - 1] = true;
        notUp = Arrays.copyOf(notUp, (n + 63) >>> 6);
    }

    /** Whether server s's active health check decides its trial (a reload may switch it on or off). */
    public void probeTrial(int s, boolean probe) {
        probeTrial[s] = probe;
    }

    /** Told of every transition, on the core's thread; a listener that throws is ignored. */
    public void listener(Consumer<Transition> l) {
        this.listener = requireNonNull(l, "l");
    }

    /** The state at {@code nowNanos} (a DOWN server whose backoff ended is HALF_OPEN, or UP when held). */
    public State state(int s, long nowNanos) {
        if (state[s] == State.DOWN && nowNanos >= downUntil[s]) {
            if (held[s]) {
                held[s] = false; // back without a trial and without a transition (see Held)
                set(s, State.UP);
                failures[s] = 0;
                upFlag[s] = true;
            } else {
                set(s, State.HALF_OPEN);
                trialOut[s] = false;
            }
        }
        return state[s];
    }

    /** May a request be sent to s now: UP, or HALF_OPEN with no trial out and no probe deciding. */
    public boolean admits(int s, long nowNanos) {
        if (storedUp(s)) {
            return true; // UP as stored, so UP now: one bit read for the common case
        }
        return switch (state(s, nowNanos)) {
            case UP -> true;
            case DOWN -> false;
            case HALF_OPEN -> !trialOut[s] && !probeTrial[s];
        };
    }

    /** A request was sent to s; returns true when it is the half-open trial. */
    boolean dispatched(int s, long nowNanos) {
        if (storedUp(s)) {
            return false; // UP
        }
        if (state(s, nowNanos) == State.HALF_OPEN) {
            trialOut[s] = true;
            return true;
        }
        return false;
    }

    /** A trial left its server without a verdict (the client left, a keep-alive race): another may go. */
    void trialEnded(int s, long nowNanos) {
        if (state(s, nowNanos) == State.HALF_OPEN) {
            trialOut[s] = false;
        }
    }

    /** The server answered (a response head below 500, or a passing probe). */
    public void success(int s, long nowNanos) {
        switch (state(s, nowNanos)) {
            case UP -> failures[s] = 0;
            case HALF_OPEN -> up(s, nowNanos);
            case DOWN -> { } // a late answer to a request sent before the ejection: the backoff holds
        }
    }

    /** The server failed; may eject it. */
    public void failure(int s, Failure f, long nowNanos) {
        requireNonNull(f, "f");
        if (!f.counts()) {
            return;
        }
        State st = state(s, nowNanos);
        switch (st) {
            case DOWN -> { }
            case HALF_OPEN -> eject(s, f, failures[s] + 1, nowNanos);
            case UP -> {
                failures[s]++;
                if (failures[s] >= threshold) {
                    eject(s, f, failures[s], nowNanos);
                }
            }
        }
    }

    /** The simulator's refused connection: out for the base backoff, then straight back (no trial). */
    public void hold(int s, long nowNanos) {
        if (state(s, nowNanos) == State.DOWN) {
            return;
        }
        held[s] = true;
        set(s, State.DOWN);
        downUntil[s] = nowNanos + baseNanos;
        upFlag[s] = false;
    }

    private void eject(int s, Failure f, int inARow, long nowNanos) {
        if (state[s] == State.UP && nowNanos - upSince[s] >= maxNanos) {
            ejections[s] = 0; // it had stayed up long enough: start afresh
        }
        long backoff = ejections[s] >= 62 ? maxNanos : Math.min(maxNanos, baseNanos << Math.min(ejections[s], 40));
        if (backoff <= 0) {
            backoff = maxNanos;
        }
        ejections[s]++;
        boolean wasUp = state[s] == State.UP;
        set(s, State.DOWN);
        held[s] = false;
        trialOut[s] = false;
        downUntil[s] = nowNanos + backoff;
        failures[s] = inARow;
        upFlag[s] = false;
        if (wasUp) {
            downs[s]++;
            tell(new Transition(s, ids[s], false, f, inARow, backoff, nowNanos));
        }
    }

    private void up(int s, long nowNanos) {
        set(s, State.UP);
        failures[s] = 0;
        trialOut[s] = false;
        upSince[s] = nowNanos;
        upFlag[s] = true;
        ups[s]++;
        tell(new Transition(s, ids[s], true, null, 0, 0, nowNanos));
    }

    /** UP as last stored (so UP now: only a stored DOWN changes with time). */
    private boolean storedUp(int s) {
        return (notUp[s >>> 6] & 1L << s) == 0;
    }

    private void set(int s, State st) {
        state[s] = st;
        if (st == State.UP) {
            notUp[s >>> 6] &= ~(1L << s);
        } else {
            notUp[s >>> 6] |= 1L << s;
        }
    }

    /**
     * Adds to {@code bits} (bit s for server s) every server whose state as last stored is not UP: a
     * superset of the servers {@link #state} reports other than UP (a backoff that ended is seen there).
     */
    void orNotUp(long[] bits) {
        for (int w = 0; w < notUp.length && w < bits.length; w++) {
            bits[w] |= notUp[w];
        }
    }

    private void tell(Transition t) {
        try {
            listener.accept(t);
        } catch (RuntimeException e) {
            // a listener that throws must not break dispatching
            LOG.warn("health listener failed on '{}': {}", t.message(), e.toString());
        }
    }

    /** Ejected (DOWN or HALF_OPEN after failures; not the simulator's short {@link #hold}). */
    public boolean ejected(int s, long nowNanos) {
        return state(s, nowNanos) != State.UP && !held[s];
    }

    /** UP as of the last event (no clock: for gauges on other threads). */
    public boolean isUpNow(int s) {
        return upFlag[s];
    }

    /** Failures in a row at s. */
    public int failuresInARow(int s) {
        return failures[s];
    }

    /** How many times s went down. */
    public long downTransitions(int s) {
        return downs[s];
    }

    /** How many times s came back up. */
    public long upTransitions(int s) {
        return ups[s];
    }

    /** When a DOWN server's backoff ends (meaningless otherwise). */
    public long downUntil(int s) {
        return downUntil[s];
    }

    /** Whether an active health check decides s's half-open trial. */
    public boolean probeTrial(int s) {
        return probeTrial[s];
    }

    public int serverCount() {
        return ids.length;
    }
}
