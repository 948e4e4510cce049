package dev.unread.api;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/** Per-user tokens for the tests, signed by nimbus-jose-jwt as an identity provider would. */
final class Jwts {

    static final String SECRET = "a-test-secret-of-at-least-32-bytes!";

    private Jwts() {}

    /** HS256 with {@link #SECRET}, {@code sub} = userId, valid for an hour. */
    static String forUser(long userId) {
        return hs256(SECRET, claims(Long.toString(userId), Duration.ofHours(1)));
    }

    static JWTClaimsSet.Builder claims(String subject, Duration validFor) {
        return new JWTClaimsSet.Builder()
                .subject(subject)
                .expirationTime(Date.from(Instant.now().plus(validFor)));
    }

    static String hs256(String secret, JWTClaimsSet.Builder claims) {
        try {
            return sign(
                    new MACSigner(secret.getBytes(StandardCharsets.UTF_8)),
                    JWSAlgorithm.HS256,
                    claims);
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    static String rs256(KeyPair keys, JWTClaimsSet.Builder claims) {
        return sign(new RSASSASigner(keys.getPrivate()), JWSAlgorithm.RS256, claims);
    }

    static KeyPair rsaKeys() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The public key as {@code -----BEGIN PUBLIC KEY-----} PEM. */
    static String pem(KeyPair keys) {
        return "-----BEGIN PUBLIC KEY-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(keys.getPublic().getEncoded())
                + "\n-----END PUBLIC KEY-----\n";
    }

    private static String sign(
            JWSSigner signer, JWSAlgorithm algorithm, JWTClaimsSet.Builder claims) {
        SignedJWT jwt = new SignedJWT(new JWSHeader(algorithm), claims.build());
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
        return jwt.serialize();
    }
}
