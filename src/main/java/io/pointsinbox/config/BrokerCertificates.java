package io.pointsinbox.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.util.Optional;

/**
 * Checks {@code points.broker-trust-certificates} before anything starts: a path that is missing, unreadable or holds
 * no PEM certificate would otherwise surface only as a failed TLS handshake at every reconnect.
 */
public final class BrokerCertificates {

    private static final String PEM_BEGIN = "-----BEGIN CERTIFICATE-----";

    private BrokerCertificates() {
    }

    /** What is wrong with the file at {@code location}, or empty when it holds one or more PEM certificates. */
    public static Optional<String> problem(String location) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(Path.of(location));
        } catch (NoSuchFileException e) {
            return Optional.of("must be a PEM file of CA certificates: no such file");
        } catch (IOException | RuntimeException e) {
            return Optional.of("must be a readable PEM file of CA certificates: " + e);
        }
        if (!new String(bytes, StandardCharsets.US_ASCII).contains(PEM_BEGIN)) {
            return Optional.of("must be a PEM file of CA certificates: no " + PEM_BEGIN + " in it");
        }
        try {
            int count = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))
                    .size();
            return count > 0 ? Optional.empty()
                    : Optional.of("must be a PEM file of CA certificates: no certificate in it");
        } catch (CertificateException e) {
            return Optional.of("must be a PEM file of CA certificates: " + e.getMessage());
        }
    }
}
