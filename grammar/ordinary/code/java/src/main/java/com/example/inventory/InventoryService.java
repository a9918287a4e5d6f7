// policyc ordinary sample: an everyday Java service class (records, Optional, streams).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/java/ to measure rule breadth.

package com.example.inventory;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/** Keeps stock levels per warehouse and reports items that need reordering. */
public class InventoryService {

    public record StockLevel(String sku, String warehouse, int quantity, Instant updatedAt) {
        public StockLevel {
            Objects.requireNonNull(sku, "sku");
            Objects.requireNonNull(warehouse, "warehouse");
            if (quantity < 0) {
                throw new IllegalArgumentException("quantity must not be negative: " + quantity);
            }
        }
    }

    private final Map<String, StockLevel> levels = new ConcurrentHashMap<>();
    private final Map<String, Integer> reorderPoints;
    private final Clock clock;

    public InventoryService(Map<String, Integer> reorderPoints, Clock clock) {
        this.reorderPoints = Map.copyOf(reorderPoints);
        this.clock = clock;
    }

    private static String key(String sku, String warehouse) {
        return sku + "@" + warehouse;
    }

    public Optional<StockLevel> find(String sku, String warehouse) {
        return Optional.ofNullable(levels.get(key(sku, warehouse)));
    }

    public StockLevel receive(String sku, String warehouse, int amount) {
        if (amount <= 0) {
            throw new IllegalArgumentException("amount must be positive: " + amount);
        }
        return levels.merge(
                key(sku, warehouse),
                new StockLevel(sku, warehouse, amount, clock.instant()),
                (old, added) -> new StockLevel(sku, warehouse, old.quantity() + added.quantity(), clock.instant()));
    }

    public StockLevel ship(String sku, String warehouse, int amount) {
        StockLevel current = find(sku, warehouse)
                .orElseThrow(() -> new IllegalStateException("no stock of " + sku + " in " + warehouse));
        if (current.quantity() < amount) {
            throw new IllegalStateException("only " + current.quantity() + " of " + sku + " left");
        }
        StockLevel updated = new StockLevel(sku, warehouse, current.quantity() - amount, clock.instant());
        levels.put(key(sku, warehouse), updated);
        return updated;
    }

    public int totalQuantity(String sku) {
        return levels.values().stream()
                .filter(level -> level.sku().equals(sku))
                .mapToInt(StockLevel::quantity)
                .sum();
    }

    public List<String> itemsToReorder() {
        Map<String, Integer> totals = levels.values().stream()
                .collect(Collectors.groupingBy(StockLevel::sku, Collectors.summingInt(StockLevel::quantity)));
        return reorderPoints.entrySet().stream()
                .filter(entry -> totals.getOrDefault(entry.getKey(), 0) <= entry.getValue())
                .map(Map.Entry::getKey)
                .sorted()
                .toList();
    }
}
