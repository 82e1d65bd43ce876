package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.bool;
import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.duration;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.number;
import static org.arbiter.common.config.ConfigKey.shaped;
import static org.arbiter.common.config.ConfigKey.string;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The {@code classes} list, declared once: each class's name, target, utility or yield, weight,
 * share, match rule and queue, with the rules across classes (unique names, exactly one default).
 *
 * <p>Stateless and thread-safe.
 */
final class ClassesSection {

    private ClassesSection() {
    }

    private static final String YIELD_DOC = "yield (002 §2.2), instead of `utility`. Per request (gateway statistics, "
            + "yield schedulers): hybrid is `value` up to `preDeadline`, then linear down to `dropPenalty` (002's C') at "
            + "`deadline`, then 0; throughput is `value` up to `deadline`; response-time falls linearly from `value` at "
            + "0 to 0 at `deadline`; a dropped request yields 0 ([gateway](gateway.md#yield-scheduling-002)). A class "
            + "without `yield` counts per request as throughput, full 1, deadline = `target`. The GRM values the same "
            + "shape at the mean response time (−dropPenalty past the deadline)";

    static final ConfigKey<ClassConfig, String> NAME = string("name", ClassConfig::name, null, "the class")
            .docDefault("— (required)").docRule(ConfigValues.ID_RULE);
    static final ConfigKey<ClassConfig, Double> TARGET = duration("target", ClassConfig::targetSeconds, 0,
            v -> v > 0, "> 0", "τ_c, the response-time target").docDefault("— (required)");
    static final ConfigKey<ClassConfig, Double> PHI = number("utility.phi", (ClassConfig c) -> c.yield() != null ? null : c.utility().phi(),
            1, v -> v >= 0, ">= 0", "φ of 003 eq. 7");
    static final ConfigKey<ClassConfig, Double> ALPHA = number("utility.alpha",
            (ClassConfig c) -> c.yield() != null ? null : c.utility().alpha(), 1, v -> v > 0, "> 0", "α of 003 eq. 7");
    static final ConfigKey<ClassConfig, Double> BETA = number("utility.beta",
            (ClassConfig c) -> c.yield() != null ? null : c.utility().beta(), 1, v -> v > 0, "> 0", "β of 003 eq. 7");
    static final ConfigKey<ClassConfig, ClassConfig.UtilitySpec.Scale> SCALE = choice("utility.scale",
            (ClassConfig c) -> c.yield() != null || c.utility().scale() == ClassConfig.UtilitySpec.Scale.ABSOLUTE ? null
                    : c.utility().scale(), ClassConfig.UtilitySpec.Scale.class, ClassConfig.UtilitySpec.Scale.ABSOLUTE,
            "how φ scales the utility: `absolute`, φ as given (a second late costs φ in every class); `relative`, "
                    + "φ/τ_c (lateness as a fraction of the class's target, so classes of different targets weigh "
                    + "alike: the reading under which 003 §V-B's phases come out, [experiments](experiments.md))");
    static final ConfigKey<ClassConfig, ClassConfig.YieldSpec.Shape> YIELD_SHAPE = choice("yield.shape",
            (ClassConfig c) -> c.yield() == null ? null : c.yield().shape(), ClassConfig.YieldSpec.Shape.class,
            ClassConfig.YieldSpec.Shape.HYBRID, YIELD_DOC).docDefault("hybrid (no yield: `utility`)");
    static final ConfigKey<ClassConfig, Double> YIELD_VALUE = number("yield.value",
            (ClassConfig c) -> c.yield() == null ? null : c.yield().full(), 1, v -> v >= 0, ">= 0",
            "the full yield C; `full` is accepted as its older name, not both");
    static final ConfigKey<ClassConfig, Double> YIELD_FULL = number("yield.full",
            (ClassConfig c) -> null, 1, v -> v >= 0, ">= 0", "the older name of `yield.value`");
    static final ConfigKey<ClassConfig, Double> YIELD_DROP_PENALTY = number("yield.dropPenalty",
            (ClassConfig c) -> c.yield() == null ? null : c.yield().dropPenalty(), 0, v -> v >= 0, ">= 0",
            "002's C', what a request that misses the deadline costs").docRule("≥ 0; for hybrid ≤ value");
    static final ConfigKey<ClassConfig, Double> YIELD_DEADLINE = duration("yield.deadline",
            (ClassConfig c) -> c.yield() == null ? null : c.yield().deadlineSeconds(), 1, v -> v > 0, "> 0",
            "where the yield reaches `dropPenalty` (hybrid) or 0").docDefault("the target");
    static final ConfigKey<ClassConfig, Double> YIELD_PRE_DEADLINE = duration("yield.preDeadline",
            (ClassConfig c) -> c.yield() == null ? null : c.yield().preDeadlineSeconds(), 0.5, v -> v >= 0, ">= 0",
            "where a hybrid yield starts to fall").docDefault("half the deadline").docRule("duration ≥ 0, ≤ deadline");
    static final ConfigKey<ClassConfig, Double> WEIGHT = number("weight", ClassConfig::weight, 1, v -> v > 0, "> 0",
            "initial w(g,c), used until the GRM speaks and by standalone gateways");
    static final ConfigKey<ClassConfig, Double> MIN_SHARE = number("minShare", ClassConfig::minShare, 0,
            v -> v >= 0 && v <= 1, "between 0 and 1",
            "guaranteed fraction of N (002 §2.3): the GRM keeps it in the weights; the yield schedulers serve a class "
                    + "whose decayed consumption share (002 eq. 2-3, or the same over the last few seconds) is below it "
                    + "first (002 Fig. 5 step 2a; [gateway](gateway.md#yield-scheduling-002))").docRule("0..1");
    static final ConfigKey<ClassConfig, Double> THINK_TIME = duration("thinkTime",
            (ClassConfig c) -> c.closedLoop() ? c.thinkTimeSeconds() : null, Double.POSITIVE_INFINITY, v -> v >= 0, ">= 0",
            "the class's clients are closed-loop and think this long on average between an answer and their next "
                    + "request; the GRM's flow model then lets their arrival rate fall as response times grow "
                    + "(docs/grm.md, \"Closed-loop clients\")").docDefault("absent (open loop)");
    static final ConfigKey<ClassConfig, Object> MATCH_HEADER = shaped("match.header", "none",
            "map of name → value; `regex:...` for a regular expression", "all given conditions must hold");
    static final ConfigKey<ClassConfig, String> MATCH_PATH = string("match.path", (ClassConfig c) -> c.match().path(), null,
            "path prefix").docRule("starts with `/`");
    static final ConfigKey<ClassConfig, Boolean> MATCH_CASE_INSENSITIVE = bool("match.caseInsensitive",
            (ClassConfig c) -> c.match().caseInsensitive() ? true : null, false,
            "compare `match.path` ignoring ASCII case, for a backend that serves paths case-insensitively: "
                    + "`/ADMIN` then lands in the `/admin` class ([gateway](gateway.md#what-is-classified-and-forwarded))")
            .docRule("true or false; only with `match.path`");
    static final ConfigKey<ClassConfig, String> MATCH_METHOD = string("match.method", (ClassConfig c) -> c.match().method(), null,
            "case-insensitive").docRule("an HTTP method");
    static final ConfigKey<ClassConfig, String> MATCH_HOST = string("match.host", (ClassConfig c) -> c.match().host(), null,
            "case-insensitive, port ignored").docRule("host name");
    static final ConfigKey<ClassConfig, String> MATCH_SOURCE = string("match.source",
            (ClassConfig c) -> c.match().source() == null ? null : c.match().source().toString(), null,
            "the client's address lies in it: the source of a trusted PROXY protocol header "
                    + "(`gateways[].proxyProtocol`), else the TCP peer. An IPv4-mapped IPv6 address matches an IPv4 "
                    + "block. Error: `classes[0].match.source: 203.0.113.0/33 (expected: a prefix length 0..32 after /)`")
            .docRule("one IPv4 / IPv6 address or CIDR block (`203.0.113.0/24`, `2001:db8::/32`); literals only");
    static final ConfigKey<ClassConfig, Integer> QUEUE_LIMIT = integer("queue.limit", (ClassConfig c) -> c.queue().limit(), 1000,
            v -> v >= 0, ">= 0", "requests the class queue holds; beyond it: 503");
    static final ConfigKey<ClassConfig, Double> QUEUE_TIMEOUT = duration("queue.timeout",
            (ClassConfig c) -> c.queue().timeoutSeconds(), 30, v -> v > 0, "> 0", "longest wait in the queue; beyond it: 503");
    static final ConfigKey<ClassConfig, Boolean> DEFAULT = bool("default", (ClassConfig c) -> c.isDefault() ? true : null, false,
            "unmatched requests go here").docRule("exactly one class true");

    /** Every key but {@code yield.full}, the older name that is read but never written. */
    static final List<ConfigKey<ClassConfig, ?>> KEYS = List.of(NAME, TARGET, PHI, ALPHA, BETA, SCALE, YIELD_SHAPE,
            YIELD_VALUE, YIELD_DROP_PENALTY, YIELD_DEADLINE, YIELD_PRE_DEADLINE, WEIGHT, MIN_SHARE, THINK_TIME,
            MATCH_HEADER, MATCH_PATH, MATCH_CASE_INSENSITIVE, MATCH_METHOD, MATCH_HOST, MATCH_SOURCE, QUEUE_LIMIT, QUEUE_TIMEOUT, DEFAULT);

    /** The classes, and the names read (for {@code servers[].sim.demand}). */
    static List<ClassConfig> read(Node root, Set<String> classNames) {
        root.require("classes");
        List<ClassConfig> classes = new ArrayList<>();
        List<Node> nodes = root.list("classes");
        if (root.has("classes") && nodes.isEmpty() && root.errors().isEmpty()) {
            root.error("classes", "an empty list (expected: at least one class)");
        }
        for (Node c : nodes) {
            ClassConfig cc = readClass(c);
            if (cc != null) {
                if (!classNames.add(cc.name())) {
                    c.error("name", cc.name() + " (expected: a name no other class has)");
                }
                classes.add(cc);
            }
        }
        long defaults = classes.stream().filter(ClassConfig::isDefault).count();
        if (!classes.isEmpty() && defaults != 1) {
            root.error("classes", defaults + " classes marked default (expected: exactly one class with default: true)");
        }
        return classes;
    }

    private static ClassConfig readClass(Node c) {
        String name = ConfigValues.id(c, NAME.leaf());
        double target = 0;
        if (c.require(TARGET.leaf())) {
            target = TARGET.read(c);
        }
        Node u = c.object("utility");
        ClassConfig.UtilitySpec utility = new ClassConfig.UtilitySpec(PHI.read(u), ALPHA.read(u), BETA.read(u), SCALE.read(u));
        u.finish();
        ClassConfig.YieldSpec yield = null;
        if (c.has("yield")) {
            yield = readYield(c, c.object("yield"), target);
        }
        double weight = WEIGHT.read(c);
        double minShare = MIN_SHARE.read(c);
        MatchRule match = readMatch(c.object("match"));
        Node q = c.object("queue");
        ClassConfig.QueueConfig queue = new ClassConfig.QueueConfig(QUEUE_LIMIT.read(q), QUEUE_TIMEOUT.read(q));
        q.finish();
        boolean isDefault = DEFAULT.read(c);
        double think = THINK_TIME.read(c);
        c.finish();
        if (name == null) {
            return null;
        }
        return new ClassConfig(name, target, utility, yield, weight, minShare, match, queue, isDefault, think);
    }

    private static ClassConfig.YieldSpec readYield(Node c, Node y, double target) {
        ClassConfig.YieldSpec.Shape shape = YIELD_SHAPE.read(y);
        // `value` is the full yield C (issue 17's name); `full`, its first name here, is still read
        double value = YIELD_VALUE.read(y);
        double full = y.has(YIELD_FULL.leaf()) ? YIELD_FULL.read(y) : value;
        if (y.has("full") && y.has("value")) {
            y.error("value", "given together with full (expected: one of them; full is the older name of value)");
        }
        double penalty = YIELD_DROP_PENALTY.read(y);
        double deadline = YIELD_DEADLINE.read(y, target > 0 ? target : 1);
        double pre = YIELD_PRE_DEADLINE.read(y, deadline / 2);
        y.finish();
        if (pre > deadline) {
            y.error("preDeadline", Durations.format(pre) + " (expected: <= deadline, " + Durations.format(deadline) + ")");
        }
        if (shape == ClassConfig.YieldSpec.Shape.HYBRID && penalty > full) {
            // 002 §2.2: a yield function is non-increasing; hybrid falls from full to dropPenalty at the deadline
            y.error("dropPenalty", penalty + " (expected: <= value, " + full + ", for a hybrid yield)");
        }
        if (c.has("utility")) {
            c.error("yield", "given together with utility (expected: one of utility or yield)");
        }
        return new ClassConfig.YieldSpec(shape, full, penalty, deadline, pre);
    }

    private static MatchRule readMatch(Node m) {
        Map<String, String> headers = new LinkedHashMap<>(m.stringMap("header"));
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getValue().startsWith("regex:")) {
                try {
                    Pattern.compile(h.getValue().substring("regex:".length()));
                } catch (PatternSyntaxException e) {
                    m.error("header." + h.getKey(), h.getValue() + " (expected: a valid regular expression: "
                            + e.getDescription() + ")");
                }
            }
        }
        String path = MATCH_PATH.read(m);
        if (path != null && !path.startsWith("/")) {
            m.error("path", path + " (expected: a path prefix starting with /)");
        }
        boolean caseInsensitive = MATCH_CASE_INSENSITIVE.read(m);
        if (caseInsensitive && path == null) {
            m.error("caseInsensitive", "true without a path (expected: match.path, whose case it ignores)");
        }
        String method = MATCH_METHOD.read(m);
        if (method != null && !method.matches("[A-Za-z]+")) {
            m.error("method", method + " (expected: an HTTP method such as GET)");
        }
        String host = MATCH_HOST.read(m);
        String sourceText = MATCH_SOURCE.read(m);
        Cidr source = null;
        if (sourceText != null) {
            try {
                source = Cidr.parse(sourceText);
            } catch (IllegalArgumentException e) {
                m.error("source", e.getMessage());
            }
        }
        m.finish();
        return new MatchRule(headers, path, method, host, source, caseInsensitive);
    }

    /** Each class's keys against their rules, unique names and exactly one default. */
    static void check(List<ClassConfig> classes, List<String> errors) {
        if (classes.isEmpty()) {
            errors.add("classes: an empty list (expected: at least one class)");
        }
        Set<String> names = new HashSet<>();
        for (int i = 0; i < classes.size(); i++) {
            ClassConfig c = classes.get(i);
            String path = "classes[" + i + "]";
            Sections.check(c, path, KEYS, errors);
            if (!names.add(c.name())) {
                errors.add(path + ".name: " + c.name() + " (expected: a name no other class has)");
            }
        }
        long defaults = classes.stream().filter(ClassConfig::isDefault).count();
        if (!classes.isEmpty() && defaults != 1) {
            errors.add("classes: " + defaults + " classes marked default (expected: exactly one class with default: true)");
        }
    }

    static Map<String, Object> write(ClassConfig c) {
        Map<String, Object> tree = Sections.write(c, KEYS);
        if (!c.match().headers().isEmpty()) {
            Sections.put(tree, "match.header", c.match().headers());
        }
        return tree;
    }
}
