package dev.unread.sinks;

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
 * A TCP proxy in front of the shared Redis that a test can take down and bring back, to play a
 * Redis outage without touching the real server. While down it cuts every open connection and
 * accepts new ones only to close them at once, counting them, so a test can tell that a client
 * is retrying.
 */
final class TcpProxy implements AutoCloseable {
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
    private volatile boolean up = true;
    private int refused;

    TcpProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        threads.execute(this::accept);
    }

    int port() {
        return server.getLocalPort();
    }

    String redisUrl(int database) {
        return "redis://127.0.0.1:" + port() + "/" + database;
    }

    /** Waits until {@code count} connections in all were refused while down; false on timeout. */
    synchronized boolean awaitRefused(int count, long timeoutMs) throws InterruptedException {
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

    void down() {
        up = false;
        for (Socket socket : open) {
            closeQuietly(socket);
        }
    }

    void up() {
        up = true;
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                if (!up) {
                    client.close();
                    countRefused();
                    continue;
                }
                Socket target = new Socket(targetHost, targetPort);
                open.add(client);
                open.add(target);
                threads.execute(() -> pump(client, target));
                threads.execute(() -> pump(target, client));
            } catch (IOException e) {
                // The server socket was closed, or one connection failed: the loop decides.
            }
        }
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
