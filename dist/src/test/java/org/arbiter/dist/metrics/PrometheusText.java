package org.arbiter.dist.metrics;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4, as Prometheus reads it, for
 * tests: every line is a {@code # HELP}, a {@code # TYPE}, another comment, blank, or a sample
 * {@code name{label="value",…} value [timestamp]}; anything else is an error naming the line.
 * Beyond the grammar it checks what a scrape must hold: at most one TYPE and one HELP per family,
 * TYPE before the family's samples, a family's samples together, no series twice, label values
 * escaped only with {@code \\ \" \n}; histograms with {@code le} on every bucket, cumulative
 * buckets ending at {@code +Inf} equal to {@code _count}; counters not negative.
 */
final class PrometheusText {

    private static final Pattern METRIC = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern FLOAT = Pattern.compile("[+-]?(?:Inf|NaN|(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?)");
    private static final Pattern TIMESTAMP = Pattern.compile("-?[0-9]+");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    /** One sample line. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** One metric family: its TYPE (untyped when none was given), HELP and samples. */
    record Family(String name, String type, String help, List<Sample> samples) {
    }

    /** A parsed exposition. */
    record Exposition(Map<String, Family> families) {

        /** Every sample name served (a histogram {@code h} serves {@code h_bucket}, {@code h_sum}, {@code h_count}). */
        Set<String> sampleNames() {
            Set<String> out = new HashSet<>();
            families.values().forEach(f -> f.samples().forEach(s -> out.add(s.name())));
            return out;
        }

        /**
         * The family a sample name belongs to: {@code x_bucket} to histogram {@code x};
         * {@code x_sum} and {@code x_count} to histogram or summary {@code x}; any other name
         * (a counter named {@code x_count} included) to itself.
         */
        Optional<Family> familyOf(String sampleName) {
            for (String suffix : List.of("_bucket", "_sum", "_count")) {
                if (sampleName.endsWith(suffix)) {
                    Family f = families.get(sampleName.substring(0, sampleName.length() - suffix.length()));
                    if (f != null && (f.type().equals("histogram") || !suffix.equals("_bucket") && f.type().equals("summary"))) {
                        return Optional.of(f);
                    }
                }
            }
            return Optional.ofNullable(families.get(sampleName));
        }

        /** True when a sample of that exact name is served. */
        boolean serves(String sampleName) {
            return familyOf(sampleName).map(f -> f.samples().stream().anyMatch(s -> s.name().equals(sampleName)))
                    .orElse(false);
        }

        List<Sample> samples(String sampleName) {
            return familyOf(sampleName).map(f -> f.samples().stream().filter(s -> s.name().equals(sampleName)).toList())
                    .orElse(List.of());
        }
    }

    /** A line that is not valid exposition text. */
    static final class ParseException extends RuntimeException {
        ParseException(int line, String text, String why) {
            super("line " + line + ": " + why + ": " + text);
        }
    }

    private PrometheusText() {
    }

    static Exposition parse(String text) {
        Map<String, String> types = new HashMap<>();
        Map<String, String> helps = new HashMap<>();
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        Set<String> finished = new HashSet<>();
        Set<String> series = new HashSet<>();
        String current = null;
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new ParseException(0, "", "the exposition does not end with a newline");
        }
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length - 1; i++) {
            String line = lines[i];
            int n = i + 1;
            if (line.endsWith("\r")) {
                throw new ParseException(n, line, "carriage return");
            }
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("#")) {
                String[] p = line.split(" ", 4);
                if (p.length >= 3 && p[0].equals("#") && (p[1].equals("HELP") || p[1].equals("TYPE"))) {
                    String name = p[2];
                    if (!METRIC.matcher(name).matches()) {
                        throw new ParseException(n, line, "bad metric name in " + p[1]);
                    }
                    if (p[1].equals("TYPE")) {
                        if (p.length != 4 || !TYPES.contains(p[3])) {
                            throw new ParseException(n, line, "bad TYPE (expected: one of " + new java.util.TreeSet<>(TYPES) + ")");
                        }
                        if (types.putIfAbsent(name, p[3]) != null) {
                            throw new ParseException(n, line, "second TYPE for " + name);
                        }
                        if (samples.containsKey(name)) {
                            throw new ParseException(n, line, "TYPE after samples of " + name);
                        }
                    } else {
                        String help = p.length == 4 ? p[3] : "";
                        checkEscapes(n, line, help, false);
                        if (helps.putIfAbsent(name, help) != null) {
                            throw new ParseException(n, line, "second HELP for " + name);
                        }
                    }
                }
                continue; // any other comment
            }
            Sample s = sample(n, line);
            String family = family(s.name(), types);
            if (!family.equals(current)) {
                if (finished.contains(family)) {
                    throw new ParseException(n, line, "samples of " + family + " are not together");
                }
                if (current != null) {
                    finished.add(current);
                }
                current = family;
            }
            if (!series.add(s.name() + new TreeMap<>(s.labels()))) {
                throw new ParseException(n, line, "series given twice");
            }
            String type = types.getOrDefault(family, "untyped");
            if (type.equals("counter") && s.value() < 0) {
                throw new ParseException(n, line, "negative counter");
            }
            if (type.equals("histogram") && s.name().equals(family + "_bucket") && !s.labels().containsKey("le")) {
                throw new ParseException(n, line, "histogram bucket without le");
            }
            samples.computeIfAbsent(family, k -> new ArrayList<>()).add(s);
        }
        Map<String, Family> families = new LinkedHashMap<>();
        for (Map.Entry<String, List<Sample>> e : samples.entrySet()) {
            Family f = new Family(e.getKey(), types.getOrDefault(e.getKey(), "untyped"), helps.getOrDefault(e.getKey(), ""),
                    List.copyOf(e.getValue()));
            if (f.type().equals("histogram")) {
                checkHistogram(f);
            }
            families.put(f.name(), f);
        }
        return new Exposition(Collections.unmodifiableMap(families));
    }

    /** The family of a sample name, by the TYPEs declared so far. */
    private static String family(String name, Map<String, String> types) {
        for (String suffix : List.of("_bucket", "_sum", "_count")) {
            if (name.endsWith(suffix)) {
                String base = name.substring(0, name.length() - suffix.length());
                String t = types.get(base);
                if ("histogram".equals(t) || !suffix.equals("_bucket") && "summary".equals(t)) {
                    return base;
                }
            }
        }
        return name;
    }

    private static Sample sample(int n, String line) {
        int i = 0;
        while (i < line.length() && (Character.isLetterOrDigit(line.charAt(i)) || line.charAt(i) == '_' || line.charAt(i) == ':')) {
            i++;
        }
        String name = line.substring(0, i);
        if (!METRIC.matcher(name).matches()) {
            throw new ParseException(n, line, "bad metric name");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (true) {
                if (i < line.length() && line.charAt(i) == '}') {
                    i++;
                    break;
                }
                int start = i;
                while (i < line.length() && line.charAt(i) != '=') {
                    i++;
                }
                String label = line.substring(start, i);
                if (i >= line.length() || !LABEL.matcher(label).matches()) {
                    throw new ParseException(n, line, "bad label name '" + label + "'");
                }
                i++; // '='
                if (i >= line.length() || line.charAt(i) != '"') {
                    throw new ParseException(n, line, "label value not quoted");
                }
                i++;
                StringBuilder v = new StringBuilder();
                boolean closed = false;
                while (i < line.length()) {
                    char c = line.charAt(i++);
                    if (c == '\\') {
                        if (i >= line.length()) {
                            break;
                        }
                        char e = line.charAt(i++);
                        switch (e) {
                            case '\\' -> v.append('\\');
                            case '"' -> v.append('"');
                            case 'n' -> v.append('\n');
                            default -> throw new ParseException(n, line, "bad escape \\" + e + " in a label value");
                        }
                    } else if (c == '"') {
                        closed = true;
                        break;
                    } else {
                        v.append(c);
                    }
                }
                if (!closed) {
                    throw new ParseException(n, line, "unterminated label value");
                }
                if (labels.put(label, v.toString()) != null) {
                    throw new ParseException(n, line, "label " + label + " twice");
                }
                if (i < line.length() && line.charAt(i) == ',') {
                    i++;
                } else if (i >= line.length() || line.charAt(i) != '}') {
                    throw new ParseException(n, line, "expected ',' or '}' after a label");
                }
            }
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw new ParseException(n, line, "expected a space before the value");
        }
        String[] rest = line.substring(i).trim().split(" +");
        if (rest.length < 1 || rest.length > 2 || rest[0].isEmpty()) {
            throw new ParseException(n, line, "expected a value and at most a timestamp");
        }
        if (!FLOAT.matcher(rest[0]).matches()) {
            throw new ParseException(n, line, "bad value '" + rest[0] + "'");
        }
        if (rest.length == 2 && !TIMESTAMP.matcher(rest[1]).matches()) {
            throw new ParseException(n, line, "bad timestamp '" + rest[1] + "'");
        }
        return new Sample(name, Collections.unmodifiableMap(labels), value(rest[0]));
    }

    static double value(String s) {
        return switch (s) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN", "+NaN", "-NaN" -> Double.NaN;
            default -> Double.parseDouble(s);
        };
    }

    private static void checkEscapes(int n, String line, String s, boolean quotes) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == '\\') {
                char e = i + 1 < s.length() ? s.charAt(i + 1) : ' ';
                if (e != '\\' && e != 'n' && !(quotes && e == '"')) {
                    throw new ParseException(n, line, "bad escape in HELP");
                }
                i++;
            }
        }
    }

    /** Per label set (le aside): buckets cumulative, the last one +Inf, equal to _count. */
    private static void checkHistogram(Family f) {
        Map<Map<String, String>, List<Sample>> buckets = new HashMap<>();
        Map<Map<String, String>, Double> counts = new HashMap<>();
        for (Sample s : f.samples()) {
            Map<String, String> rest = new TreeMap<>(s.labels());
            if (s.name().equals(f.name() + "_bucket")) {
                rest.remove("le");
                buckets.computeIfAbsent(rest, k -> new ArrayList<>()).add(s);
            } else if (s.name().equals(f.name() + "_count")) {
                counts.put(rest, s.value());
            }
        }
        for (Map.Entry<Map<String, String>, List<Sample>> e : buckets.entrySet()) {
            List<Sample> b = new ArrayList<>(e.getValue());
            b.sort((x, y) -> Double.compare(value(x.labels().get("le")), value(y.labels().get("le"))));
            double last = 0;
            for (Sample s : b) {
                if (s.value() < last) {
                    throw new ParseException(0, s.toString(), "histogram " + f.name() + " buckets not cumulative");
                }
                last = s.value();
            }
            Sample inf = b.get(b.size() - 1);
            if (!inf.labels().get("le").equals("+Inf")) {
                throw new ParseException(0, inf.toString(), "histogram " + f.name() + " without a +Inf bucket");
            }
            Double count = counts.get(e.getKey());
            if (count == null || count != inf.value()) {
                throw new ParseException(0, inf.toString(), "histogram " + f.name() + ": +Inf bucket " + inf.value()
                        + " but _count " + count);
            }
        }
    }
}
