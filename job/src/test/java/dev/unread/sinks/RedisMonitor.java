package dev.unread.sinks;

import dev.unread.testing.Poll;
import dev.unread.testing.TestRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The commands the shared Redis runs, as {@code MONITOR} shows them ({@code <time> [<db> <client>]
 * "COMMAND" "arg" ...}), heard from a thread of its own until closed: the order in which Redis ran
 * a writer's commands.
 */
final class RedisMonitor implements AutoCloseable {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Jedis jedis = new Jedis(TestRedis.HOST, TestRedis.PORT);
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread thread;

    /** Returns once Redis shows this monitor a command run after it: {@code GET marker}. */
    RedisMonitor(String marker) throws Exception {
        thread =
                new Thread(
                        () -> {
                            try {
                                jedis.monitor(
                                        new JedisMonitor() {
                                            @Override
                                            public void onCommand(String command) {
                                                lines.add(command);
                                            }
                                        });
                            } catch (JedisException closed) {
                                // close() ended it
                            }
                        },
                        "redis monitor");
        thread.setDaemon(true);
        thread.start();
        try (Jedis other = TestRedis.connect(0)) {
            Poll.until(
                    "MONITOR shows a command",
                    WAIT,
                    () -> {
                        other.get(marker);
                        return lines.stream().anyMatch(line -> line.contains(marker)) ? true : null;
                    });
        }
    }

    /**
     * The commands of the client that ran the first command naming {@code key}, from that one on,
     * until one containing {@code last} (inclusive), each as {@code "COMMAND" "arg" ...}.
     */
    List<String> commandsOfClientOf(String key, String last) throws Exception {
        List<String> commands = new ArrayList<>();
        String[] client = {null};
        Poll.until(
                "a command containing " + last,
                WAIT,
                () -> {
                    for (String line = lines.poll(); line != null; line = lines.poll()) {
                        int open = line.indexOf('[');
                        int close = line.indexOf(']');
                        String who = line.substring(open, close + 1);
                        String command = line.substring(close + 2);
                        if (client[0] == null && command.contains("\"" + key)) {
                            client[0] = who;
                        }
                        if (who.equals(client[0])) {
                            commands.add(command);
                            if (command.contains(last)) {
                                return true;
                            }
                        }
                    }
                    return null;
                });
        return commands;
    }

    @Override
    public void close() throws InterruptedException {
        jedis.close();
        thread.join(10_000);
    }
}
