package io.pointsinbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.activemq.artemis.core.config.CoreAddressConfiguration;
import org.apache.activemq.artemis.core.config.FileDeploymentManager;
import org.apache.activemq.artemis.core.config.impl.FileConfiguration;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * What can be checked of the container and Kubernetes files without a Docker engine: they only set variables the
 * application reads, the README documents every one of them, and the broker configuration matches the service.
 */
class DeploymentFilesTest {

    /** Read without a ${...} in application.properties: the datasource, the AMQP connector, the profile. */
    private static final Set<String> FRAMEWORK_VARIABLES = Set.of("QUARKUS_DATASOURCE_JDBC_URL",
            "QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD", "QUARKUS_PROFILE", "AMQP_HOST",
            "AMQP_PORT", "AMQP_USERNAME", "AMQP_PASSWORD", "AMQP_USE_SSL");
    /** Read by the base images' start scripts, the java launcher or the C library, not by the application. */
    private static final Set<String> IMAGE_VARIABLES = Set.of("LANGUAGE", "JAVA_OPTS_APPEND", "JAVA_APP_JAR",
            "JDK_JAVA_OPTIONS", "MALLOC_ARENA_MAX");

    @Test
    void composeSetsOnlyVariablesTheApplicationReads() throws IOException {
        Map<String, Object> compose = yaml(Path.of("docker/compose.yaml"));
        Map<String, Object> app = map(map(compose.get("services")).get("points-inbox"));
        Set<String> names = map(app.get("environment")).keySet();
        assertTrue(names.containsAll(Set.of("QUARKUS_DATASOURCE_JDBC_URL", "AMQP_HOST",
                "POINTS_JWT_PUBLIC_KEY_LOCATION")), "compose wires database, broker and token key: " + names);
        assertKnown("docker/compose.yaml", names);
        assertTrue(java.util.Collections.disjoint(names, MEASURED_DEFAULTS),
                "compose leaves concurrency and pool to the defaults the figures are measured with: " + names);
    }

    /**
     * Settings whose defaults (chosen by the running JDK) are the recommended configuration's: a deployment file that
     * pins them runs something other than what the README's figures measure.
     */
    static final Set<String> MEASURED_DEFAULTS = Set.of("POINTS_CONCURRENCY", "POINTS_DB_POOL_SIZE",
            "QUARKUS_DATASOURCE_JDBC_MAX_SIZE");

    @Test
    void dockerfilesSetOnlyKnownVariables() throws IOException {
        for (String file : List.of("docker/Dockerfile.jvm", "docker/Dockerfile.jvm-aot", "docker/Dockerfile.native")) {
            Set<String> names = new TreeSet<>();
            Matcher env = Pattern.compile("(?m)^ENV\\s+([A-Z0-9_]+)=").matcher(Files.readString(Path.of(file)));
            while (env.find()) {
                names.add(env.group(1));
            }
            names.removeAll(IMAGE_VARIABLES);
            assertKnown(file, names);
        }
    }

    @Test
    void theDockerReadmeListsEveryDockerfile() throws IOException {
        String readme = Files.readString(Path.of("docker/README.md"));
        try (var files = Files.list(Path.of("docker"))) {
            List<String> dockerfiles = files.map(file -> file.getFileName().toString())
                    .filter(name -> name.startsWith("Dockerfile") && !name.endsWith(".dockerignore")).sorted().toList();
            assertTrue(dockerfiles.size() >= 3, "dockerfiles " + dockerfiles);
            for (String dockerfile : dockerfiles) {
                assertTrue(readme.contains("`" + dockerfile + "`"), "docker/README.md does not list " + dockerfile);
            }
        }
    }

    /**
     * The AOT cache is only used by the JVM build that wrote it, at the path it was trained at, and jvm.options
     * makes a cache that cannot be used fail the start instead of slowing it silently.
     */
    @Test
    void theRecommendedImageRunsItsCacheWhereAndOnWhatItWasTrained() throws IOException {
        String dockerfile = Files.readString(Path.of("docker/Dockerfile.jvm-aot"));
        List<String> from = all(dockerfile, "(?m)^FROM\\s+(\\S+)");
        assertEquals(2, from.size(), "a build stage that trains and a runtime stage: " + from);
        assertEquals(from.get(0), from.get(1), "both stages on the same JDK image");
        List<String> workdirs = all(dockerfile, "(?m)^WORKDIR\\s+(\\S+)");
        assertEquals(workdirs.get(0) + "/target/quarkus-app", workdirs.get(workdirs.size() - 1),
                "the runtime directory is the training directory");
        assertTrue(dockerfile.contains("bin/build-recommended"), "the image trains as bin/build-recommended does");
        assertTrue(dockerfile.matches("(?s).*ENTRYPOINT \\[ \"java\", \"@[^\"]*jvm.options\".*"),
                "the image starts with docker/jvm.options");
        List<String> options = Files.readAllLines(Path.of("docker/jvm.options"));
        assertTrue(options.contains("-XX:AOTMode=on"), "a rejected cache fails loudly: " + options);
        assertTrue(options.contains("-XX:AOTCache=app.aot"), "the cache of the training run: " + options);
        assertTrue(Files.readString(Path.of("bin/run-recommended")).contains("@../../docker/jvm.options"),
                "bin/run-recommended starts with the options of the image");
    }

    /** Every relative link of the README and docs/ leads to a file, and its #anchor to a heading of that file. */
    @Test
    void documentationLinksResolve() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(Path.of("README.md"), Path.of("docker/README.md")));
        try (var docs = Files.list(Path.of("docs"))) {
            docs.filter(file -> file.toString().endsWith(".md")).forEach(documents::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path document : documents) {
            for (String link : all(Files.readString(document), "\\]\\(([^)\\s]+)\\)")) {
                if (link.startsWith("http://") || link.startsWith("https://")) {
                    continue;
                }
                String[] parts = link.split("#", 2);
                Path target = parts[0].isEmpty() ? document : document.resolveSibling(parts[0]).normalize();
                if (!Files.exists(target)) {
                    broken.add(document + ": " + link + " (no such file)");
                } else if (parts.length == 2 && !anchors(target).contains(parts[1])) {
                    broken.add(document + ": " + link + " (no such heading)");
                }
            }
        }
        assertEquals(List.of(), broken, "broken links");
    }

    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new TreeSet<>();
        for (String heading : all(Files.readString(markdown), "(?m)^#+\\s+(.+)$")) {
            anchors.add(heading.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
        }
        return anchors;
    }

    private static List<String> all(String text, String pattern) {
        List<String> found = new ArrayList<>();
        Matcher matcher = Pattern.compile(pattern).matcher(text);
        while (matcher.find()) {
            found.add(matcher.group(1));
        }
        return found;
    }

    @Test
    void kubernetesConfigMapAndSecretTemplateSetOnlyVariablesTheApplicationReads() throws IOException {
        Set<String> names = new TreeSet<>();
        for (Object document : new Yaml().loadAll(Files.readString(Path.of("src/main/kubernetes/kubernetes.yml")))) {
            Map<String, Object> resource = map(document);
            if ("ConfigMap".equals(resource.get("kind"))) {
                Set<String> keys = map(resource.get("data")).keySet();
                keys.forEach(key -> assertTrue(!key.contains("PASSWORD"), "no password in a ConfigMap: " + key));
                names.addAll(keys);
            }
        }
        names.addAll(map(yaml(Path.of("src/main/kubernetes/secret.example.yaml")).get("stringData")).keySet());
        assertKnown("src/main/kubernetes", names);
    }

    @Test
    void theReadmeConfigurationTableDocumentsEveryVariableOfApplicationProperties() throws IOException {
        String readme = Files.readString(Path.of("README.md"));
        List<String> undocumented = new ArrayList<>();
        for (String name : propertiesVariables()) {
            if (!readme.contains("`" + name + "`")) {
                undocumented.add(name);
            }
        }
        assertEquals(List.of(), undocumented, "environment variables missing from the README's configuration table");
    }

    @Test
    void theBrokerConfigurationHasTheDeadLetterAddressAndBoundedAttemptsTheServiceAssumes() throws Exception {
        FileConfiguration configuration = new FileConfiguration();
        FileDeploymentManager deployment = new FileDeploymentManager(
                Path.of("docker/artemis/broker.xml").toAbsolutePath().toUri().toString());
        deployment.addDeployable(configuration);
        deployment.readConfiguration();

        AddressSettings everyAddress = configuration.getAddressSettings().get("#");
        assertEquals("DLQ", everyAddress.getDeadLetterAddress().toString(), "dead-letter address");
        assertTrue(everyAddress.getMaxDeliveryAttempts() > 1 && everyAddress.getMaxDeliveryAttempts() < 100,
                "bounded delivery attempts, got " + everyAddress.getMaxDeliveryAttempts());
        assertTrue(configuration.getAcceptorConfigurations().stream()
                .anyMatch(acceptor -> String.valueOf(acceptor.getParams().get("protocols")).contains("AMQP")),
                "an AMQP acceptor");
        assertEquals(Set.of("DLQ", "points-granted"), new TreeSet<>(configuration.getAddressConfigurations().stream()
                .map(CoreAddressConfiguration::getName).toList()), "addresses");
    }

    private static void assertKnown(String file, Set<String> names) throws IOException {
        Set<String> known = new TreeSet<>(propertiesVariables());
        known.addAll(FRAMEWORK_VARIABLES);
        Set<String> unknown = new TreeSet<>(names);
        unknown.removeAll(known);
        assertEquals(Set.of(), unknown, file + " sets variables the application never reads");
    }

    /** Every ${NAME...} placeholder of application.properties: the variables the application reads. */
    private static Set<String> propertiesVariables() throws IOException {
        Set<String> names = new TreeSet<>();
        Matcher placeholder = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]+)")
                .matcher(Files.readString(Path.of("src/main/resources/application.properties")));
        while (placeholder.find()) {
            names.add(placeholder.group(1));
        }
        return names;
    }

    private static Map<String, Object> yaml(Path file) throws IOException {
        try (Reader reader = Files.newBufferedReader(file)) {
            return new Yaml().load(reader);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }
}
