// policyc ordinary sample: an everyday Spring Boot REST controller (validation, ResponseEntity, exceptions).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/java/ to measure rule breadth.

package com.example.inventory.web;

import com.example.inventory.InventoryService;
import com.example.inventory.InventoryService.StockLevel;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.validation.annotation.Validated;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
@RequestMapping("/api/stock")
@Validated
public class StockController {

    public record Movement(@NotBlank String warehouse, @Min(1) int amount) {}

    private final InventoryService inventory;

    public StockController(InventoryService inventory) {
        this.inventory = inventory;
    }

    @GetMapping("/{sku}/{warehouse}")
    public ResponseEntity<StockLevel> level(@PathVariable String sku, @PathVariable String warehouse) {
        return ResponseEntity.of(inventory.find(sku, warehouse));
    }

    @GetMapping("/{sku}")
    public Map<String, Object> total(@PathVariable String sku) {
        return Map.of("sku", sku, "quantity", inventory.totalQuantity(sku));
    }

    @PostMapping("/{sku}/receive")
    public ResponseEntity<StockLevel> receive(@PathVariable String sku, @Valid @RequestBody Movement movement) {
        StockLevel level = inventory.receive(sku, movement.warehouse(), movement.amount());
        URI location = URI.create("/api/stock/" + sku + "/" + movement.warehouse());
        return ResponseEntity.created(location).body(level);
    }

    @PostMapping("/{sku}/ship")
    public StockLevel ship(@PathVariable String sku, @Valid @RequestBody Movement movement) {
        return inventory.ship(sku, movement.warehouse(), movement.amount());
    }

    @GetMapping("/reorder")
    public List<String> reorder() {
        return inventory.itemsToReorder();
    }

    @ExceptionHandler(IllegalStateException.class)
    public ProblemDetail conflict(IllegalStateException exception) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, exception.getMessage());
        problem.setTitle("Not enough stock");
        return problem;
    }

    @ExceptionHandler(IllegalArgumentException.class)
    public ProblemDetail badRequest(IllegalArgumentException exception) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, exception.getMessage());
    }
}
