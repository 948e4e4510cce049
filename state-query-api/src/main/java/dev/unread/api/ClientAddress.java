package dev.unread.api;

import io.javalin.http.Context;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;

/**
 * The client address a request is limited by (docs/contract.md, "Limits"): the connection's peer;
 * when the peer is one of the trusted proxies, the nearest hop in {@code X-Forwarded-For} that is
 * not one (the hops further left are whatever the client wrote). An IPv6 client is its /64, which
 * one host is commonly given whole: per address it would have 2^64 allowances.
 */
final class ClientAddress {

    private static final String FORWARDED_FOR = "X-Forwarded-For";

    /**
     * An address literal: IPv4 dotted, or IPv6 with at least one colon; never a name to resolve.
     */
    private static final String LITERAL = "[0-9.]+|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*";

    /** A network, {@code bits} long, of the trusted proxies. */
    private record Block(byte[] network, int bits) {
        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < bits; bit += 8) {
                int mask = bits - bit >= 8 ? 0xff : (0xff << (8 - (bits - bit))) & 0xff;
                if ((address[bit / 8] & mask) != (network[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Block> trusted;

    /**
     * @param trustedProxies addresses and CIDR blocks ({@code 10.0.0.0/8}, {@code fd00::/8})
     */
    ClientAddress(List<String> trustedProxies) {
        List<Block> blocks = new ArrayList<>();
        for (String proxy : trustedProxies) {
            blocks.add(block(proxy));
        }
        this.trusted = List.copyOf(blocks);
    }

    /**
     * {@code text}, checked as a block of the trusted proxies.
     *
     * @throws IllegalArgumentException when it is not an address literal with an optional prefix
     *     length
     */
    static String requireBlock(String text) {
        block(text);
        return text;
    }

    private static Block block(String text) {
        int slash = text.indexOf('/');
        byte[] address = parse(slash < 0 ? text : text.substring(0, slash));
        if (address == null) {
            throw new IllegalArgumentException(
                    "trusted proxy " + text + " is not an IP address or CIDR block");
        }
        int bits = address.length * 8;
        if (slash >= 0) {
            String length = text.substring(slash + 1);
            if (!length.matches("[0-9]{1,3}") || Integer.parseInt(length) > bits) {
                throw new IllegalArgumentException(
                        "trusted proxy " + text + " has a bad prefix length");
            }
            bits = Integer.parseInt(length);
        }
        return new Block(address, bits);
    }

    /** The address {@code ctx} is limited by, as a key of the rate limiter. */
    String of(Context ctx) {
        return of(ctx.req().getRemoteAddr(), Collections.list(ctx.req().getHeaders(FORWARDED_FOR)));
    }

    /**
     * @param peer the connection's peer
     * @param forwardedFor each {@code X-Forwarded-For} header's value, in order
     */
    String of(String peer, List<String> forwardedFor) {
        byte[] client = parse(peer);
        if (client == null) {
            return peer;
        }
        List<String> hops = new ArrayList<>();
        for (String header : forwardedFor) {
            for (String hop : header.split(",")) {
                hops.add(hop.trim());
            }
        }
        for (int i = hops.size() - 1; i >= 0 && isTrusted(client); i--) {
            byte[] hop = parse(hops.get(i));
            if (hop == null) {
                // Not what a proxy writes: the nearest trusted proxy stands for its client.
                break;
            }
            client = hop;
        }
        return key(client);
    }

    private boolean isTrusted(byte[] address) {
        for (Block block : trusted) {
            if (block.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** IPv4 as it is; IPv6 by its /64. */
    private static String key(byte[] address) {
        if (address.length == 4) {
            return (address[0] & 0xff)
                    + "."
                    + (address[1] & 0xff)
                    + "."
                    + (address[2] & 0xff)
                    + "."
                    + (address[3] & 0xff);
        }
        return HexFormat.of().formatHex(address, 0, 8) + "::/64";
    }

    /**
     * The bytes of an address literal, brackets and an IPv4 port allowed; an IPv4-mapped IPv6
     * address as IPv4; null for anything else, a name above all (it is never resolved).
     */
    private static byte[] parse(String text) {
        String literal = text.trim();
        if (literal.startsWith("[")) {
            int end = literal.indexOf(']');
            literal = end < 0 ? "" : literal.substring(1, end);
        } else if (literal.matches("[0-9.]+:[0-9]+")) {
            literal = literal.substring(0, literal.indexOf(':'));
        }
        if (literal.isEmpty() || !literal.matches(LITERAL)) {
            return null;
        }
        try {
            return InetAddress.getByName(literal).getAddress();
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
