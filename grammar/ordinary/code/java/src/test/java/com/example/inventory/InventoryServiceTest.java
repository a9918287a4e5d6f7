// policyc ordinary sample: an everyday JUnit 5 test class with AssertJ.
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/java/ to measure rule breadth.

package com.example.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InventoryServiceTest {

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2024-04-01T08:00:00Z"), ZoneOffset.UTC);

    private InventoryService service;

    @BeforeEach
    void setUp() {
        service = new InventoryService(Map.of("chair", 5, "desk", 2), CLOCK);
    }

    @Test
    @DisplayName("receiving twice adds up the quantities")
    void receiveAddsUp() {
        service.receive("chair", "north", 3);
        service.receive("chair", "north", 4);

        assertThat(service.find("chair", "north"))
                .get()
                .extracting(InventoryService.StockLevel::quantity)
                .isEqualTo(7);
    }

    @Test
    void shippingMoreThanInStockFails() {
        service.receive("desk", "south", 1);

        assertThatThrownBy(() -> service.ship("desk", "south", 2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only 1 of desk left");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, -100})
    void nonPositiveAmountsAreRejected(int amount) {
        assertThatThrownBy(() -> service.receive("chair", "north", amount))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void totalsAcrossWarehouses() {
        service.receive("chair", "north", 3);
        service.receive("chair", "south", 4);

        assertThat(service.totalQuantity("chair")).isEqualTo(7);
    }

    @Test
    void reorderListIsSortedAndIncludesMissingItems() {
        service.receive("chair", "north", 10);

        assertThat(service.itemsToReorder()).containsExactly("desk");
    }
}
