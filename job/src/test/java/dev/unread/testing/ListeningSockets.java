package dev.unread.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP sockets this JVM listens on, read from Linux's {@code /proc}: a test can then assert that
 * nothing it started is reachable from beyond 127.0.0.1, whichever library opened it.
 */
public final class ListeningSockets {

    private static final String LISTEN = "0A";

    private ListeningSockets() {}

    /** Whether this platform exposes the sockets (Linux). */
    public static boolean available() {
        return Files.isReadable(Path.of("/proc/net/tcp"))
                && Files.isDirectory(Path.of("/proc/self/fd"));
    }

    /** Local addresses of every listening TCP socket this process holds open. */
    public static List<InetSocketAddress> ofThisProcess() {
        Set<String> inodes = socketInodes();
        List<InetSocketAddress> listening = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path path = Path.of(table);
            if (!Files.isReadable(path)) {
                continue;
            }
            try {
                List<String> lines = Files.readAllLines(path);
                for (String line : lines.subList(1, lines.size())) {
                    String[] f = line.trim().split("\\s+");
                    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                    if (f.length > 9 && f[3].equals(LISTEN) && inodes.contains(f[9])) {
                        listening.add(address(f[1]));
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return listening;
    }

    private static Set<String> socketInodes() {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException e) {
                    // The descriptor was closed while listing: not a socket we need.
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return inodes;
    }

    /** {@code 0100007F:1F90} → 127.0.0.1:8080; the address is in the kernel's byte order. */
    private static InetSocketAddress address(String hex) {
        String[] parts = hex.split(":");
        String ip = parts[0];
        byte[] bytes = new byte[ip.length() / 2];
        // Each 32-bit word is printed little-endian on x86 and arm64.
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int i = 0; i < 4; i++) {
                int at = word * 8 + (3 - i) * 2;
                bytes[word * 4 + i] = (byte) Integer.parseInt(ip.substring(at, at + 2), 16);
            }
        }
        try {
            return new InetSocketAddress(
                    InetAddress.getByAddress(bytes), Integer.parseInt(parts[1], 16));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
