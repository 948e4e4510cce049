package dev.unread.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy on 127.0.0.1 in front of a shared server (Redis, MariaDB) that a test can take down
 * and bring back, to play an outage of that server without touching it: other tests keep using the
 * server directly. While down it cuts every open connection and accepts new ones only to close them
 * at once, counting them, so a test can tell that a client is retrying.
 *
 * <pre>{@code
 * try (TcpProxy proxy = new TcpProxy("127.0.0.1", 6379)) {
 *     settings.put("redis-url", "redis://" + proxy.address() + "/0");
 *     ...
 *     proxy.down();   // every connection cut, reconnects refused
 *     proxy.up();
 * }
 * }</pre>
 */
public final class TcpProxy implements AutoCloseable {
    private final String targetHost;
    private final int targetPort;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads =
            Executors.newCachedThreadPool(
                    runnable -> {
                        Thread thread = new Thread(runnable, "tcp-proxy");
                        thread.setDaemon(true);
                        return thread;
                    });
    private boolean up = true;
    private int refused;

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** {@code 127.0.0.1:port}, to put in a client's URL instead of the server's address. */
    public String address() {
        return "127.0.0.1:" + port();
    }

    /** Connections refused while down, so far. */
    public synchronized int refused() {
        return refused;
    }

    /** Waits until {@code count} connections in all were refused while down; false on timeout. */
    public synchronized boolean awaitRefused(int count, long timeoutMs)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (refused < count) {
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (leftMs <= 0) {
                return false;
            }
            wait(leftMs);
        }
        return true;
    }

    private synchronized void countRefused() {
        refused++;
        notifyAll();
    }

    /** Cuts every open connection and refuses new ones until {@link #up()}. */
    public synchronized void down() {
        up = false;
        for (Socket socket : open) {
            closeQuietly(socket);
        }
    }

    public synchronized void up() {
        up = true;
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                // The server socket was closed: the loop ends.
                continue;
            }
            try {
                if (!connect(client)) {
                    client.close();
                    countRefused();
                }
            } catch (IOException e) {
                // The server behind is unreachable: the client sees its connection closed.
                closeQuietly(client);
            }
        }
    }

    /**
     * Pipes {@code client} to a new connection to the server, unless down. Under the lock that
     * {@link #down()} takes, so no connection opened while going down survives the outage.
     */
    private synchronized boolean connect(Socket client) throws IOException {
        if (!up) {
            return false;
        }
        Socket target = new Socket(targetHost, targetPort);
        open.add(client);
        open.add(target);
        threads.execute(() -> pump(client, target));
        threads.execute(() -> pump(target, client));
        return true;
    }

    private void pump(Socket from, Socket to) {
        try {
            from.getInputStream().transferTo(to.getOutputStream());
        } catch (IOException e) {
            // A side went away; closing both ends below tells the other side.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing is all that was asked for.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        down();
        threads.shutdownNow();
    }
}
