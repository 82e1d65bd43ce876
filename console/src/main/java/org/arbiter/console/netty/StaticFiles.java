package org.arbiter.console.netty;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The page and its libraries, read from the class path and kept in memory: {@code /} and
 * {@code /console.*} from {@code org/arbiter/console/ui/}, and {@code /webjars/<name>/<path>}
 * from the WebJar {@code org.webjars.npm:<name>} (its version found in the jar's
 * {@code pom.properties}, so the page need not name it).
 *
 * <p>Thread-safe.
 */
final class StaticFiles {

    /** A file to send. */
    record File(byte[] bytes, String contentType) {
    }

    private static final Pattern SAFE = Pattern.compile("/[A-Za-z0-9._/-]{0,200}");
    private static final Map<String, String> TYPES = Map.of(
            "html", "text/html; charset=utf-8", "js", "text/javascript; charset=utf-8",
            "css", "text/css; charset=utf-8", "png", "image/png", "svg", "image/svg+xml", "map", "application/json");
    private static final File MISSING = new File(new byte[0], "");

    private final Map<String, File> cache = new ConcurrentHashMap<>();

    /** The file at URL path {@code path}, if there is one. */
    Optional<File> get(String path) {
        if (path == null || !SAFE.matcher(path).matches() || path.contains("..") || path.contains("//")) {
            return Optional.empty();
        }
        File f = cache.computeIfAbsent(path, this::load);
        return f == MISSING ? Optional.empty() : Optional.of(f);
    }

    private File load(String path) {
        String resource;
        if (path.equals("/") || path.equals("/index.html")) {
            resource = "org/arbiter/console/ui/index.html";
        } else if (path.startsWith("/webjars/")) {
            String rest = path.substring("/webjars/".length());
            int slash = rest.indexOf('/');
            if (slash <= 0) {
                return MISSING;
            }
            String name = rest.substring(0, slash);
            String version = webJarVersion(name);
            if (version == null) {
                return MISSING;
            }
            resource = "META-INF/resources/webjars/" + name + "/" + version + rest.substring(slash);
        } else if (path.lastIndexOf('/') == 0) {
            resource = "org/arbiter/console/ui" + path;
        } else {
            return MISSING;
        }
        String ext = resource.substring(resource.lastIndexOf('.') + 1);
        String type = TYPES.get(ext);
        if (type == null) {
            return MISSING;
        }
        try (InputStream in = StaticFiles.class.getClassLoader().getResourceAsStream(resource)) {
            return in == null ? MISSING : new File(in.readAllBytes(), type);
        } catch (IOException e) {
            return MISSING;
        }
    }

    /** The version of WebJar {@code org.webjars.npm:name} on the class path, or null. */
    static String webJarVersion(String name) {
        String props = "META-INF/maven/org.webjars.npm/" + name + "/pom.properties";
        try (InputStream in = StaticFiles.class.getClassLoader().getResourceAsStream(props)) {
            if (in == null) {
                return null;
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version");
        } catch (IOException e) {
            return null;
        }
    }
}
