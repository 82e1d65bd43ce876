package org.arbiter.sim.experiment;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * A figure for each of the 003 experiments' two classes. In result.json basic comes first: the
 * order the maps these records replace gave in the documented runs, kept so the files stay
 * byte-identical.
 */
@JsonPropertyOrder({"basic", "premium"})
public record PerClass<T extends Number>(T premium, T basic) {
}
