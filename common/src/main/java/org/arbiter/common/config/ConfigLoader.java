package org.arbiter.common.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads and validates {@code cluster.yaml}. Validation reports <em>all</em> problems at once, each
 * naming its YAML path and the rule it breaks ({@code classes[1].target: -2s (expected: > 0)});
 * unknown keys are errors, with a "did you mean" when a known key is close. Each key is declared
 * once, with its default, rule and documentation, in its section's schema ({@code ClassesSection},
 * {@code ControlSection}, ...); docs/configuration.md's reference tables are generated from the same
 * declarations ({@link ConfigDocs}).
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigLoader {

    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** Largest {@code cluster.yaml} read, in bytes (and characters of text given to {@link #parse}). */
    public static final int MAX_FILE_BYTES = 4 << 20;
    private static final YamlReader READER = new YamlReader(MAX_FILE_BYTES);

    private ConfigLoader() {
    }

    /**
     * Loads and validates a file. At most {@link #MAX_FILE_BYTES} are read: a larger file (or an
     * endless one such as {@code /dev/zero}, whose size the file system reports as 0) is refused
     * after {@code MAX_FILE_BYTES + 1} bytes, never read whole.
     *
     * @throws ConfigException listing every problem
     */
    public static ClusterConfig load(Path file) {
        return parse(readText(file, MAX_FILE_BYTES));
    }

    /**
     * The text of a file of at most {@code maxBytes} bytes of UTF-8, read through a bounded stream.
     *
     * @throws ConfigException with one line: missing, unreadable, too large or not UTF-8
     */
    static String readText(Path file, int maxBytes) {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(maxBytes + 1);
        } catch (NoSuchFileException e) {
            throw new ConfigException(List.of(file + ": no such file"));
        } catch (IOException e) {
            throw new ConfigException(List.of(file + ": cannot read (" + e.getMessage() + ")"));
        }
        if (bytes.length > maxBytes) {
            throw new ConfigException(List.of(file + ": larger than " + Durations.formatBytes(maxBytes)
                    + " (expected: a configuration file of at most " + Durations.formatBytes(maxBytes) + ")"));
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException(List.of(file + ": not UTF-8 text (expected: a YAML file in UTF-8)"));
        }
    }

    /**
     * Parses and validates YAML text: one document of plain YAML (no tags but the core schema's,
     * each key once per mapping, aliases bounded; see {@code YamlReader}).
     *
     * @throws ConfigException listing every problem
     */
    public static ClusterConfig parse(String yaml) {
        if (yaml.length() > MAX_FILE_BYTES) {
            throw new ConfigException(List.of("(yaml): " + yaml.length() + " characters (expected: at most "
                    + MAX_FILE_BYTES + ")"));
        }
        YamlReader.Result read = READER.read(yaml);
        ErrorList errors = new ErrorList();
        errors.absorb(read.errors());
        ClusterConfig config = read(Node.root(read.root(), errors));
        if (errors.any()) {
            throw errors.exception();
        }
        return config;
    }

    /**
     * Reads every section through its declared keys ({@code *Section}), in the file's schema order; each
     * section records its problems and the rules across its keys, the rules across sections follow.
     */
    private static ClusterConfig read(Node root) {
        Set<String> classNames = new HashSet<>();
        List<ClassConfig> classes = ClassesSection.read(root, classNames);
        List<ServerConfig> servers = ServersSection.read(root, classNames);
        List<Node> proxyProtocolAt = new ArrayList<>();
        List<GatewayConfig> gateways = GatewaysSection.read(root, proxyProtocolAt);
        DispatchConfig dispatch = DispatchSection.read(root.object("dispatch"));
        ControlConfig control = ControlSection.read(root.object("control"));
        SizingConfig sizing = SizingSection.read(root.object("sizing"));
        PowerConfig power = PowerSection.read(root.object("power"), servers);
        KafkaConfig kafka = KafkaSection.read(root.object("kafka"));
        KafkaSection.across(kafka, gateways, root);
        ConsoleConfig console = ConsoleSection.read(root.object("console"));
        GatewayHttpConfig gatewayHttp = GatewayHttpSection.read(root.object("gateway"));
        GatewayHttpSection.across(gatewayHttp, proxyProtocolAt);
        GrmConfig grm = GrmSection.read(root.object("grm"));
        GrmSection.across(grm, control, root);
        List<PoolConfig> pools = PoolsSection.read(root, classes, servers);
        root.finish();
        return new ClusterConfig(classes, servers, gateways, dispatch, control, sizing, power, kafka, console,
                gatewayHttp, grm, pools);
    }
}
