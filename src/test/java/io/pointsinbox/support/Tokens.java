package io.pointsinbox.support;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Set;

import io.smallrye.jwt.build.Jwt;

/** Bearer tokens signed with the test key pair (src/test/resources/jwt), as the service's issuer would. */
public final class Tokens {

    public static final String ISSUER = "https://points-inbox.local/issuer";
    public static final String WRITER = "points-writer";
    public static final String OPS = "points-ops";

    private static final PrivateKey KEY = load("jwt/privateKey.pem");

    private Tokens() {
    }

    public static String withRoles(String... roles) {
        return Jwt.issuer(ISSUER).upn("test-client").groups(Set.of(roles)).expiresIn(3600).sign(KEY);
    }

    public static String expired(String... roles) {
        return Jwt.issuer(ISSUER).upn("test-client").groups(Set.of(roles)).issuedAt(Instant.now().minusSeconds(7200))
                .expiresAt(Instant.now().minusSeconds(3600)).sign(KEY);
    }

    /** Well-formed, but signed by a key the service does not trust. */
    public static String signedByAStranger(String... roles) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return Jwt.issuer(ISSUER).upn("intruder").groups(Set.of(roles)).expiresIn(3600)
                    .sign(generator.generateKeyPair().getPrivate());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static PrivateKey load(String resource) {
        try (InputStream in = Tokens.class.getClassLoader().getResourceAsStream(resource)) {
            String pem = new String(in.readAllBytes(), StandardCharsets.US_ASCII)
                    .replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot read the test signing key " + resource, e);
        }
    }
}
