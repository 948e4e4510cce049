package dev.unread.api;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.ConnectionFactory;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.JedisSocketFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.providers.PooledConnectionProvider;

/**
 * A client of the test Redis whose connections count round trips: one each time a connection reads
 * after it wrote, which is when a client waits for Redis. A pipeline is one however many commands
 * it carries and however its writes are split; commands that wait on each other are one each.
 */
final class CountingRedis {

    private final AtomicInteger roundTrips = new AtomicInteger();

    int roundTrips() {
        return roundTrips.get();
    }

    void reset() {
        roundTrips.set(0);
    }

    UnifiedJedis client() {
        JedisSocketFactory sockets =
                () -> {
                    try {
                        Socket socket = new CountingSocket();
                        socket.connect(new InetSocketAddress("127.0.0.1", 6379), 2000);
                        socket.setSoTimeout(5000);
                        return socket;
                    } catch (IOException e) {
                        throw new JedisConnectionException(e);
                    }
                };
        return new UnifiedJedis(
                new PooledConnectionProvider(
                        new ConnectionFactory(sockets, DefaultJedisClientConfig.builder().build())),
                1,
                Duration.ofSeconds(5));
    }

    private final class CountingSocket extends Socket {
        private final AtomicBoolean wrote = new AtomicBoolean();
        private InputStream in;
        private OutputStream out;

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                in =
                        new FilterInputStream(super.getInputStream()) {
                            @Override
                            public int read() throws IOException {
                                waited();
                                return super.read();
                            }

                            @Override
                            public int read(byte[] b, int off, int len) throws IOException {
                                waited();
                                return super.read(b, off, len);
                            }
                        };
            }
            return in;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) {
                out =
                        new FilterOutputStream(super.getOutputStream()) {
                            @Override
                            public void write(int b) throws IOException {
                                wrote.set(true);
                                super.write(b);
                            }

                            @Override
                            public void write(byte[] b, int off, int len) throws IOException {
                                wrote.set(true);
                                out().write(b, off, len);
                            }
                        };
            }
            return out;
        }

        private OutputStream out() throws IOException {
            return super.getOutputStream();
        }

        private void waited() {
            if (wrote.getAndSet(false)) {
                roundTrips.incrementAndGet();
            }
        }
    }
}
