package dev.unread.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class PercentilesTest {

    @Test
    void percentileIsTheNearestRank() {
        double[] tenValues = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
        assertThat(Percentiles.nearestRank(tenValues, 50)).isEqualTo(5);
        assertThat(Percentiles.nearestRank(tenValues, 51)).isEqualTo(6);
        assertThat(Percentiles.nearestRank(tenValues, 90)).isEqualTo(9);
        assertThat(Percentiles.nearestRank(tenValues, 99)).isEqualTo(10);
        assertThat(Percentiles.nearestRank(tenValues, 100)).isEqualTo(10);
        assertThat(Percentiles.nearestRank(tenValues, 0.1)).isEqualTo(1);
        assertThat(Percentiles.nearestRank(new double[] {42}, 99)).isEqualTo(42);

        double[] hundred = new double[100];
        Arrays.setAll(hundred, i -> i + 1);
        assertThat(Percentiles.nearestRank(hundred, 99)).isEqualTo(99);
        // A copy is sorted: the timings stay in the order they were taken.
        assertThat(tenValues).startsWith(10, 1);
    }

    @Test
    void percentileRefusesNoValuesAndPercentsOutsideOneToHundred() {
        assertThatThrownBy(() -> Percentiles.nearestRank(new double[0], 50))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Percentiles.nearestRank(new double[] {1}, 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Percentiles.nearestRank(new double[] {1}, 100.5))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
