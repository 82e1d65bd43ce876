package org.arbiter.grm.power;

import org.arbiter.grm.sizing.Fleet;

/**
 * One attempt's outcome at carrying out an actuation, as the power driver reports it to the core.
 *
 * @param actuation what was asked
 * @param ticket    grows with every actuation submitted for this server
 * @param attempt   1, 2, …
 * @param ok        the action was carried out
 * @param seen      what the actuator saw of the server
 * @param detail    the failure, or what was done
 * @param last      no attempt follows (succeeded, gave up, or superseded)
 */
public record ActuationReport(Fleet.Actuation actuation, long ticket, int attempt, boolean ok, PowerActuator.Seen seen,
                              String detail, boolean last) {
}
