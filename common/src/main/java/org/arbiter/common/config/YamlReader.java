package org.arbiter.common.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactoryBuilder;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.NodeEvent;

/*
 * Design note: reading plain YAML and nothing else.
 *
 * cluster.yaml is read as one YAML document into a Jackson tree, which Node then walks. This
 * class builds that tree from Jackson's YAML tokens itself (instead of ObjectMapper.readTree)
 * because the tree alone cannot tell what an operator must be told:
 *
 *  - Duplicate keys. readTree lets the last one win silently; Jackson's
 *    STRICT_DUPLICATE_DETECTION stops at the second with one location. Here every mapping keeps
 *    the line of each key, and every duplicate is reported with both lines, among all the other
 *    problems of the file.
 *  - Tags. Jackson ignores an explicit tag (!!python/object, !Ref): the value is read as if it
 *    were not there. Only the YAML core schema's own tags (!!str, !!int, !!float, !!bool, !!null,
 *    !!map, !!seq) are accepted; any other is reported with its line.
 *  - Anchors and aliases. Jackson's parser does not expand an alias: it hands over a string that
 *    holds the anchor's name, so `host: *h` silently read as "h". Here an alias is replaced by a
 *    copy of the anchored value, bounded against exponential expansion ("billion laughs"): at most
 *    MAX_ALIASES aliases, at most MAX_ALIAS_NODES values and at most MAX_ALIAS_CHARS characters
 *    (of scalars and keys, all copies counted) added by them in one document: 1 000 aliases of one
 *    4 MB string stop at the first alias past 1 MiB, not after 4 GB of copies. An
 *    alias to an anchor not yet complete (a recursive one) or not defined is an error. YAML 1.1
 *    merge keys (<<: *defaults) are applied: keys written in the mapping win.
 *  - Depth. Mappings and lists nest at most MAX_DEPTH levels.
 *  - Line length. A line holds at most MAX_LINE_CHARS characters, checked before parsing:
 *    SnakeYAML's scanner copies its window forward every 1 024 characters of one token, so a
 *    scalar of n characters on one line costs about n²/1024 (a 4 MB line took 5.5 s, 2 MB 1.5 s);
 *    on lines of at most 64 KiB the whole 4 MiB file reads in well under a second.
 *
 * SnakeYAML's LoaderOptions are set as well (codePointLimit, nestingDepthLimit,
 * maxAliasesForCollections, allowRecursiveKeys), but Jackson uses SnakeYAML's event parser, not
 * its Composer where most of those limits act: of them only codePointLimit takes effect there,
 * hence the checks in this class. Jackson's getObjectId() reports the anchors of mappings and
 * lists only, so the parser is subclassed to read a scalar's anchor from the last SnakeYAML event
 * (Jackson's protected _lastEvent).
 *
 * Stateless and thread-safe (each read has its own state).
 */
/** Reads one plain YAML document into a Jackson tree; see the design note in the source. */
final class YamlReader {

    /** Deepest nesting of mappings and lists. */
    static final int MAX_DEPTH = 64;
    /** Aliases (*name) in one document. */
    static final int MAX_ALIASES = 1_000;
    /** Values that aliases may add to one document, all copies counted. */
    static final int MAX_ALIAS_NODES = 100_000;
    /** Characters (of scalars and keys) that aliases may add to one document, all copies counted. */
    static final long MAX_ALIAS_CHARS = 1 << 20;
    /** Characters in one line of the file. */
    static final int MAX_LINE_CHARS = 64 << 10;
    /** The YAML core schema's tags, as Jackson reports them. */
    private static final Set<String> CORE_TAGS = Set.of("str", "int", "float", "bool", "null", "map", "seq")
            .stream().map(t -> "tag:yaml.org,2002:" + t).collect(Collectors.toUnmodifiableSet());
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** The tree (MissingNode for an empty document) and the problems that did not stop reading. */
    record Result(JsonNode root, List<String> errors) {
    }

    private final YAMLFactory factory;

    YamlReader(int maxCodePoints) {
        LoaderOptions options = new LoaderOptions();
        options.setCodePointLimit(maxCodePoints);
        options.setNestingDepthLimit(MAX_DEPTH);
        options.setMaxAliasesForCollections(MAX_ALIASES);
        options.setAllowRecursiveKeys(false);
        // duplicate keys are found here, with both lines; SnakeYAML's check would stop at the first
        this.factory = new Factory(YAMLFactory.builder().loaderOptions(options));
    }

    /** A factory whose parsers also tell a scalar's anchor (Jackson's getObjectId() has only collections'). */
    private static final class Factory extends YAMLFactory {
        private static final long serialVersionUID = 1L;

        Factory(YAMLFactoryBuilder builder) {
            super(builder);
        }

        @Override
        protected YAMLParser _createParser(Reader r, IOContext ctxt) {
            return new AnchorParser(ctxt, _parserFeatures, _yamlParserFeatures, _loaderOptions, _objectCodec, r);
        }
    }

    private static final class AnchorParser extends YAMLParser {
        AnchorParser(IOContext ctxt, int parserFeatures, int formatFeatures, LoaderOptions options, ObjectCodec codec,
                     Reader reader) {
            super(ctxt, parserFeatures, formatFeatures, options, codec, reader);
        }

        /** The anchor (&name) of the node whose first token is current, or null. */
        String anchor() {
            return _lastEvent instanceof NodeEvent n && !(n instanceof AliasEvent) ? n.getAnchor() : null;
        }
    }

    /**
     * Reads {@code text}.
     *
     * @throws ConfigException with one line when the text cannot be read at all (not YAML, too
     *                         deep, too many aliases)
     */
    Result read(String text) {
        checkLines(text);
        List<String> errors = new ErrorList();
        try (AnchorParser p = (AnchorParser) factory.createParser(new StringReader(text))) {
            Reading r = new Reading(p, errors);
            JsonToken t = p.nextToken();
            if (t == null) {
                return new Result(MissingNode.getInstance(), errors);
            }
            JsonNode root = r.value(t, "", 0);
            if (p.nextToken() != null) {
                errors.add("(yaml): a second document at line " + p.currentTokenLocation().getLineNr()
                        + " (expected: one document)");
            }
            return new Result(root, errors);
        } catch (JacksonException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr();
            // SnakeYAML's message spans lines (with a snippet of the text): one line per problem
            String why = String.valueOf(e.getOriginalMessage()).strip().replaceAll("\\s*\\R\\s*", "; ");
            throw new ConfigException(List.of("(yaml): not valid YAML" + where + " (" + why + ")"));
        } catch (IOException e) {
            throw new ConfigException(List.of("(yaml): cannot read (" + e.getMessage() + ")"));
        }
    }

    /** Refuses a line longer than {@link #MAX_LINE_CHARS} (see the design note), naming the first one. */
    static void checkLines(String text) {
        int line = 1;
        int start = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '\n') {
                if (i - start > MAX_LINE_CHARS) {
                    throw new ConfigException(List.of("(yaml): line " + line + " has " + (i - start)
                            + " characters (expected: at most " + MAX_LINE_CHARS + " a line)"));
                }
                line++;
                start = i + 1;
            }
        }
    }

    /** The state of one read: anchors seen, aliases expanded. */
    private static final class Reading {
        private final AnchorParser p;
        private final List<String> errors;
        private final Map<String, JsonNode> anchors = new HashMap<>();
        private final Map<JsonNode, Integer> sizes = new IdentityHashMap<>();
        private final Map<JsonNode, Long> chars = new IdentityHashMap<>();
        private int aliases;
        private long aliasNodes;
        private long aliasChars;

        Reading(AnchorParser p, List<String> errors) {
            this.p = p;
            this.errors = errors;
        }

        /** The value starting at the current token {@code t}, at {@code path}; null for an alias of nothing. */
        JsonNode value(JsonToken t, String path, int depth) throws IOException {
            int line = p.currentTokenLocation().getLineNr();
            if (p.isCurrentAlias()) {
                return alias(p.getText(), path, line);
            }
            String anchor = p.anchor();
            checkTag(path, line);
            JsonNode v = switch (t) {
                case START_OBJECT -> object(path, depth + 1, line);
                case START_ARRAY -> array(path, depth + 1, line);
                case VALUE_STRING, VALUE_EMBEDDED_OBJECT -> NODES.textNode(p.getText());
                case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
                    case INT -> NODES.numberNode(p.getIntValue());
                    case LONG -> NODES.numberNode(p.getLongValue());
                    default -> NODES.numberNode(p.getBigIntegerValue());
                };
                case VALUE_NUMBER_FLOAT -> p.getNumberType() == JsonParser.NumberType.BIG_DECIMAL
                        ? NODES.numberNode(p.getDecimalValue()) : NODES.numberNode(p.getDoubleValue());
                case VALUE_TRUE -> NODES.booleanNode(true);
                case VALUE_FALSE -> NODES.booleanNode(false);
                case VALUE_NULL -> NODES.nullNode();
                default -> throw new ConfigException(List.of(where(path) + ": unexpected " + t + " at line " + line
                        + " (expected: a value)"));
            };
            if (anchor != null) {
                anchors.put(anchor, v);  // registered once complete: an alias inside it finds no anchor
                sizes.put(v, size(v));
                chars.put(v, chars(v));
            }
            return v;
        }

        private ObjectNode object(String path, int depth, int line) throws IOException {
            checkDepth(depth, line);
            ObjectNode o = NODES.objectNode();
            Map<String, Integer> lines = new LinkedHashMap<>();
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                int keyLine = p.currentTokenLocation().getLineNr();
                String childPath = path.isEmpty() ? key : path + "." + key;
                JsonNode v = value(p.nextToken(), childPath, depth);
                Integer first = lines.putIfAbsent(key, keyLine);
                if (v == null) {
                    continue;
                }
                if (first != null) {
                    errors.add(childPath + ": given twice, at lines " + first + " and " + keyLine
                            + " (expected: each key once in a mapping)");
                    continue;  // the first one stays
                }
                o.set(key, v);
            }
            if (t != JsonToken.END_OBJECT) {
                throw new ConfigException(List.of(where(path) + ": unexpected " + t + " at line "
                        + p.currentTokenLocation().getLineNr() + " (expected: a key)"));
            }
            if (o.has("<<")) {
                merge(o, path, lines.get("<<"));
            }
            return o;
        }

        private ArrayNode array(String path, int depth, int line) throws IOException {
            checkDepth(depth, line);
            ArrayNode a = NODES.arrayNode();
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t == null) {
                    throw new ConfigException(List.of(where(path) + ": list not closed (expected: ])"));
                }
                JsonNode v = value(t, path + "[" + a.size() + "]", depth);
                if (v != null) {
                    a.add(v);
                }
            }
            return a;
        }

        /** YAML 1.1 merge keys: {@code <<: *base} or {@code <<: [*a, *b]}; keys given here and earlier sources win. */
        private void merge(ObjectNode o, String path, int line) {
            JsonNode m = o.remove("<<");
            List<JsonNode> sources = new ArrayList<>();
            if (m.isObject()) {
                sources.add(m);
            } else if (m.isArray()) {
                m.forEach(sources::add);
            }
            if (sources.isEmpty() || sources.stream().anyMatch(s -> !s.isObject())) {
                errors.add((path.isEmpty() ? "" : path + ".") + "<<: " + Node.describe(m) + " at line " + line
                        + " (expected: a mapping or a list of mappings to merge, such as *defaults)");
                return;
            }
            for (JsonNode s : sources) {
                for (Iterator<Map.Entry<String, JsonNode>> it = s.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    if (!o.has(e.getKey())) {
                        o.set(e.getKey(), e.getValue().deepCopy());
                    }
                }
            }
        }

        private JsonNode alias(String name, String path, int line) {
            JsonNode target = anchors.get(name);
            if (target == null) {
                errors.add(where(path) + ": *" + name + " at line " + line
                        + " (expected: an alias of an anchor &" + name + " complete before it)");
                return null;  // left out, so the reader of the tree does not report it twice
            }
            aliases++;
            aliasNodes += sizes.getOrDefault(target, 1);
            aliasChars += chars.getOrDefault(target, 0L);
            if (aliases > MAX_ALIASES || aliasNodes > MAX_ALIAS_NODES || aliasChars > MAX_ALIAS_CHARS) {
                String what = aliases > MAX_ALIASES ? MAX_ALIASES + " aliases"
                        : aliasNodes > MAX_ALIAS_NODES ? MAX_ALIAS_NODES + " values" : MAX_ALIAS_CHARS + " characters";
                throw new ConfigException(List.of("(yaml): aliases expand to more than " + what + " at line " + line
                        + ", alias *" + Node.shown(name) + " (expected: at most " + MAX_ALIASES + " aliases adding at most "
                        + MAX_ALIAS_NODES + " values and " + MAX_ALIAS_CHARS + " characters)"));
            }
            return target.isContainerNode() ? target.deepCopy() : target;
        }

        private void checkTag(String path, int line) throws IOException {
            String tag = p.getTypeId();
            if (tag == null || tag.isEmpty() || CORE_TAGS.contains(tag)) {
                return;
            }
            String shown = tag.startsWith("tag:yaml.org,2002:") ? "!!" + tag.substring("tag:yaml.org,2002:".length()) : "!" + tag;
            errors.add(where(path) + ": tag " + shown + " at line " + line
                    + " (expected: plain YAML, no tags but !!str, !!int, !!float, !!bool, !!null, !!map, !!seq)");
        }

        private static void checkDepth(int depth, int line) {
            if (depth > MAX_DEPTH) {
                throw new ConfigException(List.of("(yaml): nested deeper than " + MAX_DEPTH + " levels at line " + line
                        + " (expected: at most " + MAX_DEPTH + ")"));
            }
        }

        private int size(JsonNode v) {
            if (!v.isContainerNode()) {
                return 1;
            }
            Integer known = sizes.get(v);
            if (known != null) {
                return known;
            }
            long n = 1;
            for (JsonNode c : v) {
                n += size(c);
            }
            return (int) Math.min(Integer.MAX_VALUE, n);
        }

        /** Characters of the scalars and keys in {@code v}, saturated. */
        private long chars(JsonNode v) {
            if (!v.isContainerNode()) {
                return v.isTextual() ? v.textValue().length() : v.asText().length();
            }
            Long known = chars.get(v);
            if (known != null) {
                return known;
            }
            long n = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext(); ) {
                n += it.next().getKey().length();
            }
            for (JsonNode c : v) {
                n = Math.min(Long.MAX_VALUE / 2, n + chars(c));
            }
            return n;
        }

        private static String where(String path) {
            return path.isEmpty() ? "(root)" : path;
        }
    }
}
