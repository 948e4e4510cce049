package dev.unread.api;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.nimbusds.jwt.proc.BadJWTException;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.text.ParseException;
import java.util.Base64;
import java.util.Date;
import java.util.HashSet;
import java.util.Set;

/**
 * Who a request acts for (docs/contract.md, "Authentication"): the service token of {@code
 * UNREAD_API_TOKEN} acts for everyone; a JWT signed with the key of {@code UNREAD_API_JWT_SECRET}
 * (HS256) or {@code UNREAD_API_JWT_PUBLIC_KEY} (RS256) acts for the one user its {@code sub} names.
 * Signatures and claims are checked by nimbus-jose-jwt; nothing here is cryptography.
 */
final class Auth {

    /** What a request may touch: every user's data ({@link #SERVICE}) or one user's. */
    record Caller(long userId, long expiresAtMs) {
        /** The service token, or no authentication configured: it never expires. */
        static final Caller SERVICE = new Caller(0, 0);

        /** 403 unless this caller may read or act for {@code user}. */
        void require(long user) {
            if (userId != 0 && userId != user) {
                throw new ApiError(403, "the token is for another user");
            }
        }
    }

    /** A JWT must name its user and expire: a token without an end would be a password. */
    private static final Set<String> REQUIRED_CLAIMS = Set.of("sub", "exp");

    private final byte[] tokenHash;
    private final JWSAlgorithm algorithm;
    private final JWSVerifier verifier;
    private final DefaultJWTClaimsVerifier<SecurityContext> claimsVerifier;
    private final long maxLifetimeMs;

    Auth(ApiConfig config) {
        this.tokenHash = config.token == null ? null : sha256(config.token);
        this.claimsVerifier = claimsVerifier(config);
        this.maxLifetimeMs = config.jwtMaxLifetimeSeconds * 1000L;
        try {
            if (config.jwtSecret != null) {
                algorithm = JWSAlgorithm.HS256;
                verifier = new MACVerifier(config.jwtSecret.getBytes(StandardCharsets.UTF_8));
            } else if (config.jwtPublicKey != null) {
                algorithm = JWSAlgorithm.RS256;
                verifier = new RSASSAVerifier(rsaPublicKey(config.jwtPublicKey));
            } else {
                algorithm = null;
                verifier = null;
            }
        } catch (JOSEException e) {
            // Without the key: it may be a secret. ApiConfig checked its length already.
            throw new IllegalArgumentException("the JWT key cannot verify tokens");
        }
    }

    /** False when neither a token nor a JWT key is configured: everything is open. */
    boolean enabled() {
        return tokenHash != null || verifier != null;
    }

    /**
     * The caller presenting {@code credential} (a bearer token's text, or null when none came).
     *
     * @throws ApiError 401 when it is missing, wrong, malformed, badly signed or expired
     */
    Caller authenticate(String credential) {
        if (credential == null || credential.isEmpty()) {
            throw unauthorized("missing bearer token");
        }
        // Compare digests: equal lengths, and MessageDigest.isEqual takes the same time for
        // every content, so the response time tells nothing about the token.
        if (tokenHash != null && MessageDigest.isEqual(tokenHash, sha256(credential))) {
            return Caller.SERVICE;
        }
        if (verifier == null) {
            throw unauthorized("wrong bearer token");
        }
        SignedJWT jwt;
        try {
            jwt = SignedJWT.parse(credential);
        } catch (ParseException e) {
            throw unauthorized("wrong bearer token");
        }
        try {
            // The algorithm is ours, never the token's: "none" or HS256 signed with a public
            // key must not pass.
            if (!algorithm.equals(jwt.getHeader().getAlgorithm()) || !jwt.verify(verifier)) {
                throw unauthorized("bad token signature");
            }
            JWTClaimsSet claims = jwt.getJWTClaimsSet();
            claimsVerifier.verify(claims, null);
            requireBoundedLifetime(claims);
            return new Caller(
                    Params.id("sub", claims.getSubject()), claims.getExpirationTime().getTime());
        } catch (BadJWTException e) {
            throw unauthorized("token expired or incomplete");
        } catch (ParseException | JOSEException | ApiError e) {
            throw unauthorized("malformed token");
        }
    }

    /**
     * Claims every user token must have: {@code sub} and {@code exp}; the configured {@code iss}
     * and {@code aud} when set; and no {@code aud} at all when none is set, since such a token was
     * made for another service (as Synapse decides).
     */
    private static DefaultJWTClaimsVerifier<SecurityContext> claimsVerifier(ApiConfig config) {
        Set<String> required = new HashSet<>(REQUIRED_CLAIMS);
        JWTClaimsSet.Builder exact = new JWTClaimsSet.Builder();
        if (!config.jwtIssuer.isEmpty()) {
            required.add("iss");
            exact.issuer(config.jwtIssuer);
        }
        boolean audience = !config.jwtAudience.isEmpty();
        if (audience) {
            required.add("aud");
        }
        return new DefaultJWTClaimsVerifier<>(
                audience ? Set.of(config.jwtAudience) : null,
                exact.build(),
                required,
                audience ? null : Set.of("aud"));
    }

    /**
     * A token living longer than the configured maximum, or issued in the future, is refused: an
     * {@code exp} in year 9999 would be a password, and a leaked one could not be waited out.
     */
    private void requireBoundedLifetime(JWTClaimsSet claims) {
        long now = System.currentTimeMillis();
        long skewMs = claimsVerifier.getMaxClockSkew() * 1000L;
        long expires = claims.getExpirationTime().getTime();
        Date issued = claims.getIssueTime();
        if (issued != null && issued.getTime() > now + skewMs) {
            throw unauthorized("token issued in the future");
        }
        long from = issued == null ? now : Math.min(issued.getTime(), now);
        if (expires - from > maxLifetimeMs + skewMs) {
            throw unauthorized("token lives longer than allowed");
        }
    }

    private static ApiError unauthorized(String message) {
        return new ApiError(401, message);
    }

    /**
     * An RSA public key in PEM ({@code -----BEGIN PUBLIC KEY-----}, X.509 SubjectPublicKeyInfo).
     */
    static RSAPublicKey rsaPublicKey(String pem) {
        String base64 =
                pem.replaceAll("-----(BEGIN|END) PUBLIC KEY-----", "").replaceAll("\\s", "");
        try {
            return (RSAPublicKey)
                    KeyFactory.getInstance("RSA")
                            .generatePublic(
                                    new X509EncodedKeySpec(Base64.getDecoder().decode(base64)));
        } catch (IllegalArgumentException | GeneralSecurityException | ClassCastException e) {
            throw new IllegalArgumentException(
                    "JWT public key must be an RSA key in PEM (-----BEGIN PUBLIC KEY-----)");
        }
    }

    static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
