package dev.unread.sinks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.unread.contract.Count;
import dev.unread.sinks.CountBuffer.Target;
import dev.unread.sinks.HeldCounts.Update;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link HeldCounts#takeHeldFor}: it takes exactly the users held long enough, whatever came for
 * them since, and those put back after a failed send.
 */
class HeldCountsTest {
    private static final long HOLD = 900;

    private final HeldCounts held = new HeldCounts();

    private static Target count(long user) {
        return new Target(user, 80001, Count.CONVERSATION, 0);
    }

    private void hold(long user, long now) {
        held.put(count(user), new Update(1, 0), now);
    }

    private static Set<Long> users(Map<Target, Update> taken) {
        Set<Long> users = new TreeSet<>();
        taken.keySet().forEach(t -> users.add(t.userId()));
        return users;
    }

    @Test
    void takesTheUsersHeldLongEnoughAndNoOther() {
        hold(1, 0);
        hold(2, 100);
        hold(3, 500);
        hold(1, 600); // a later count of a user held since 0
        hold(4, 950);

        assertThat(users(held.takeHeldFor(HOLD, 1000))).containsExactly(1L, 2L);
        assertThat(held.size()).isEqualTo(2);
        assertThat(users(held.takeHeldFor(HOLD, 1400))).containsExactly(3L);
        assertThat(users(held.takeHeldFor(HOLD, 1400))).isEmpty();
        assertThat(users(held.takeHeldFor(HOLD, 1850))).containsExactly(4L);
        assertThat(held.size()).isZero();
    }

    @Test
    void aUserPutBackIsTakenAtTheNextFlush() {
        hold(1, 0);
        hold(2, 800);
        Map<Target, Update> failed = held.take(1);
        hold(3, 850);
        held.putBack(failed);
        held.putBack(Map.of(count(5), new Update(2, 0)));

        assertThat(users(held.takeHeldFor(HOLD, 900))).containsExactly(1L, 5L);
        assertThat(users(held.takeHeldFor(HOLD, 1700))).containsExactly(2L);
        assertThat(users(held.takeHeldFor(HOLD, 1750))).containsExactly(3L);
        assertThat(held.size()).isZero();
    }

    @Test
    void aUserTakenOutIsNotTakenAgain() {
        hold(1, 0);
        hold(2, 100);
        hold(3, 200);
        assertThat(held.take(2)).hasSize(1);

        assertThat(users(held.takeHeldFor(HOLD, 1100))).containsExactly(1L, 3L);
    }
}
