package dev.unread.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every way a stream leaves {@link StreamUsers} frees its slot once: cut off with its user or with
 * everyone, then closed (its own removal comes after), or closed alone.
 */
class StreamUsersTest {

    private final StreamUsers users = new StreamUsers(2, 3);

    @Test
    void streamsCutOffWithTheirUserFreeTheirSlotsOnceThoughTheyCloseAfter() {
        StreamClient a1 = add(1);
        StreamClient a2 = add(1);
        StreamClient b = add(2);

        assertThat(users.removeUser(1).streams()).containsExactly(a1, a2);
        assertThat(users.streams()).isEqualTo(1);
        assertThat(users.remove(a1)).isEmpty();
        assertThat(users.remove(a2)).isEmpty();
        assertThat(users.streams()).isEqualTo(1);

        assertThat(users.remove(b)).isPresent();
        assertThat(users.streams()).isZero();
    }

    @Test
    void streamsCutOffWithEveryoneFreeEverySlotOnceThoughTheyCloseAfter() {
        List<StreamClient> cut = List.of(add(1), add(1), add(2));
        assertThatThrownBy(() -> add(3)).isInstanceOf(ApiError.class);

        assertThat(users.removeAll()).containsExactlyInAnyOrderElementsOf(cut);
        cut.forEach(users::remove);

        assertThat(users.streams()).isZero();
        add(3);
        add(3);
        add(4);
        assertThat(users.streams()).isEqualTo(3);
    }

    @Test
    void aCutStreamClosingAfterItsUserCameBackFreesNoneOfTheNewSlots() {
        StreamClient old = add(1);
        users.removeUser(1);
        StreamClient again = add(1);

        assertThat(users.remove(old)).isEmpty();
        assertThat(users.streams()).isEqualTo(1);
        assertThat(users.remove(again)).isPresent();
        assertThat(users.streams()).isZero();
    }

    private StreamClient add(long userId) {
        return addTo(users, userId);
    }

    /** A stream of {@code userId} registered in {@code users}, writing nowhere. */
    static StreamClient addTo(StreamUsers users, long userId) {
        return addTo(users, userId, text -> {});
    }

    /** A stream of {@code userId} registered in {@code users}, writing to {@code written}. */
    static StreamClient addTo(StreamUsers users, long userId, Consumer<String> written) {
        StreamClient client =
                new StreamClient(userId, new ApiMetrics(), 4, Runnable::run) {
                    @Override
                    boolean write(String text) {
                        written.accept(text);
                        return true;
                    }

                    @Override
                    boolean heartbeat() {
                        return true;
                    }

                    @Override
                    void disconnect(boolean hard) {}
                };
        users.add(client, user -> CompletableFuture.completedFuture(null));
        return client;
    }
}
