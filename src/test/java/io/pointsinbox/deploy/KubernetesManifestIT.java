package io.pointsinbox.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** Checks the manifest that quarkus-kubernetes generated during package: target/kubernetes/kubernetes.yml. */
class KubernetesManifestIT {

    private static final List<Map<String, Object>> resources = new ArrayList<>();
    private static Map<String, Object> deployment;
    private static Map<String, Object> container;

    @BeforeAll
    static void load() throws IOException {
        for (Object document : new Yaml().loadAll(Files.readString(Path.of("target/kubernetes/kubernetes.yml")))) {
            resources.add(map(document));
        }
        deployment = resources.stream().filter(r -> "Deployment".equals(r.get("kind"))).findFirst().orElseThrow();
        container = map(list(map(map(map(deployment.get("spec")).get("template")).get("spec")).get("containers"))
                .get(0));
    }

    @Test
    void probesComeFromSmallRyeHealth() {
        assertEquals("/q/health/live", probePath("livenessProbe"));
        assertEquals("/q/health/ready", probePath("readinessProbe"));
        assertEquals("/q/health/started", probePath("startupProbe"));
    }

    @Test
    void environmentComesFromAConfigMapAndASecret() {
        List<Object> envFrom = list(container.get("envFrom"));
        assertTrue(envFrom.stream().map(KubernetesManifestIT::map)
                .anyMatch(source -> source.containsKey("secretRef")
                        && "points-inbox-secrets".equals(map(source.get("secretRef")).get("name"))),
                "secretRef points-inbox-secrets in " + envFrom);
        assertTrue(envFrom.stream().map(KubernetesManifestIT::map)
                .anyMatch(source -> source.containsKey("configMapRef")
                        && "points-inbox-config".equals(map(source.get("configMapRef")).get("name"))),
                "configMapRef points-inbox-config in " + envFrom);
        assertTrue(resources.stream().anyMatch(r -> "ConfigMap".equals(r.get("kind"))), "the ConfigMap is included");
        assertFalse(resources.stream().anyMatch(r -> "Secret".equals(r.get("kind"))),
                "no Secret in the manifest: it is created by the operator");
    }

    @Test
    void theConfigMapLeavesConcurrencyAndPoolToTheMeasuredDefaults() {
        Map<String, Object> configMap = resources.stream().filter(r -> "ConfigMap".equals(r.get("kind"))).findFirst()
                .map(r -> map(r.get("data"))).orElseThrow();
        assertTrue(configMap.containsKey("AMQP_HOST"), "the ConfigMap's data is read: " + configMap.keySet());
        List<String> pinned = new ArrayList<>(configMap.keySet());
        list(container.get("env")).forEach(variable -> pinned.add(String.valueOf(map(variable).get("name"))));
        pinned.retainAll(DeploymentFilesTest.MEASURED_DEFAULTS);
        assertEquals(List.of(), pinned, "the pod runs the concurrency and pool the README's figures are measured with");
    }

    @Test
    void noPasswordInPlainText() throws IOException {
        String manifest = Files.readString(Path.of("target/kubernetes/kubernetes.yml"));
        assertFalse(manifest.matches("(?s).*PASSWORD\\s*:.*"), "no password key with a value");
        Object env = container.get("env");
        if (env != null) {
            for (Object entry : list(env)) {
                Map<String, Object> variable = map(entry);
                String name = String.valueOf(variable.get("name"));
                assertFalse(name.matches(".*(PASSWORD|SECRET|TOKEN).*") && variable.containsKey("value"),
                        name + " must come from a Secret");
            }
        }
    }

    @Test
    void theGracePeriodCoversTheShutdownDelayAndTimeout() throws IOException {
        int grace = (Integer) map(map(map(deployment.get("spec")).get("template")).get("spec"))
                .get("terminationGracePeriodSeconds");
        String properties = Files.readString(Path.of("src/main/resources/application.properties"));
        int delay = seconds(properties, "quarkus.shutdown.delay=\\$\\{POINTS_SHUTDOWN_DELAY:(\\d+)s}");
        int timeout = seconds(properties, "quarkus.shutdown.timeout=\\$\\{POINTS_SHUTDOWN_TIMEOUT:(\\d+)s}");
        assertTrue(grace > delay + timeout, "grace period " + grace + " s > shutdown delay " + delay
                + " s + timeout " + timeout + " s");
    }

    @Test
    void severalReplicasResourcesAndScrapeAnnotations() {
        assertTrue((Integer) map(deployment.get("spec")).get("replicas") > 1, "competing consumers");
        Map<String, Object> resources = map(container.get("resources"));
        assertNotNull(map(resources.get("limits")).get("memory"), "a memory limit");
        assertNotNull(map(resources.get("requests")).get("cpu"), "a CPU request");
        Map<String, Object> annotations = map(map(map(map(deployment.get("spec")).get("template")).get("metadata"))
                .get("annotations"));
        assertEquals("/q/metrics", annotations.get("prometheus.io/path"));
        assertEquals("true", annotations.get("prometheus.io/scrape"));
    }

    @Test
    void theImageNameDoesNotDependOnWhoBuiltIt() {
        String image = String.valueOf(container.get("image"));
        assertTrue(image.matches("(.+/)?points-inbox/points-inbox:[^:]+"), "image " + image);
        assertFalse(image.contains(System.getProperty("user.name") + "/"), "image " + image + " names the local user");
    }

    @Test
    void theSelectorLeavesTheVersionOutSoALaterVersionCanBeApplied() {
        Map<String, Object> selector = map(map(map(deployment.get("spec")).get("selector")).get("matchLabels"));
        assertFalse(selector.containsKey("app.kubernetes.io/version"), "selector " + selector);
        assertTrue(selector.containsKey("app.kubernetes.io/name"), "selector " + selector);
    }

    @Test
    void probesAndTheContainerPortUseThePortTheContainerListensOn() {
        Object port = list(container.get("env")).stream().map(KubernetesManifestIT::map)
                .filter(variable -> "PORT".equals(variable.get("name"))).map(variable -> variable.get("value"))
                .findFirst().orElse(null);
        assertEquals("8080", String.valueOf(port), "PORT pinned in the container's environment");
        List<Object> ports = list(container.get("ports"));
        assertTrue(ports.stream().map(KubernetesManifestIT::map).anyMatch(p -> Integer.valueOf(8080)
                .equals(p.get("containerPort"))), "containerPort 8080 in " + ports);
        for (String probe : List.of("livenessProbe", "readinessProbe", "startupProbe")) {
            Object probePort = map(map(container.get(probe)).get("httpGet")).get("port");
            assertTrue("http".equals(probePort) || Integer.valueOf(8080).equals(probePort),
                    probe + " port " + probePort);
        }
    }

    @Test
    void thePodTakesRequestsAsSoonAsItHasStartedAndMayWaitForItsDatabaseFirst() throws IOException {
        Map<String, Object> startup = map(container.get("startupProbe"));
        Map<String, Object> readiness = map(container.get("readinessProbe"));
        // The kubelet runs the readiness probe as soon as the start-up probe passes, unless its initial delay has not
        // run out yet: then the pod waits for the next period (10 s) before it receives a request.
        assertTrue(((Integer) startup.getOrDefault("initialDelaySeconds", 0)) <= 1, "start-up probe's delay " + startup);
        assertEquals(0, readiness.getOrDefault("initialDelaySeconds", 0), "readiness probe's delay " + readiness);
        // A pod started before its database waits for it (Flyway's retries, 1, 2, 4, then every interval s): the
        // start-up probe must not restart it meanwhile.
        String properties = Files.readString(Path.of("src/main/resources/application.properties"));
        int retries = seconds(properties, "quarkus.flyway.connect-retries=(\\d+)");
        int interval = seconds(properties, "quarkus.flyway.connect-retries-interval=(\\d+)s");
        int wait = 0;
        for (int attempt = 0; attempt < retries; attempt++) {
            wait += Math.min(1 << Math.min(attempt, 20), interval);
        }
        int budget = (Integer) startup.getOrDefault("initialDelaySeconds", 0)
                + (Integer) startup.get("failureThreshold") * (Integer) startup.get("periodSeconds");
        assertTrue(budget >= wait + 15, "start-up probe's " + budget + " s against the database wait of " + wait
                + " s and the start itself");
    }

    private static String probePath(String probe) {
        return String.valueOf(map(map(container.get(probe)).get("httpGet")).get("path"));
    }

    private static int seconds(String properties, String pattern) {
        var matcher = java.util.regex.Pattern.compile(pattern).matcher(properties);
        assertTrue(matcher.find(), "setting " + pattern + " in application.properties");
        return Integer.parseInt(matcher.group(1));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return (List<Object>) value;
    }
}
