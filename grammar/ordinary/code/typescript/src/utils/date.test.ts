// policyc ordinary sample: an everyday Vitest test file for the date utilities.
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/typescript/ to measure rule breadth.

import { describe, expect, it } from "vitest";

import { addDays, daysBetween, formatDate, isWeekend, timeAgo, toDate } from "./date";

describe("toDate", () => {
  it("accepts dates, strings and timestamps", () => {
    const date = new Date("2024-03-01T10:00:00Z");
    expect(toDate(date)).toBe(date);
    expect(toDate("2024-03-01T10:00:00Z").getTime()).toBe(date.getTime());
    expect(toDate(date.getTime()).getTime()).toBe(date.getTime());
  });

  it("throws on invalid input", () => {
    expect(() => toDate("not a date")).toThrow(RangeError);
  });
});

describe("addDays", () => {
  it("moves forward and backward", () => {
    const base = new Date("2024-01-31T00:00:00Z");
    expect(addDays(base, 1).toISOString()).toBe("2024-02-01T00:00:00.000Z");
    expect(addDays(base, -31).toISOString()).toBe("2023-12-31T00:00:00.000Z");
  });
});

describe("daysBetween", () => {
  it.each([
    ["2024-01-01", "2024-01-01", 0],
    ["2024-01-01", "2024-01-08", 7],
    ["2024-01-08", "2024-01-01", -7],
  ])("from %s to %s is %i days", (from, to, expected) => {
    expect(daysBetween(from, to)).toBe(expected);
  });
});

describe("isWeekend", () => {
  it("knows Saturday and Sunday", () => {
    expect(isWeekend(new Date(2024, 5, 8))).toBe(true);
    expect(isWeekend(new Date(2024, 5, 9))).toBe(true);
    expect(isWeekend(new Date(2024, 5, 10))).toBe(false);
  });
});

describe("formatDate", () => {
  it("formats in the requested locale", () => {
    const value = new Date(Date.UTC(2024, 0, 15, 12));
    expect(formatDate(value, { timeZone: "UTC" })).toBe("Jan 15, 2024");
    expect(formatDate(value, { locale: "de-DE", timeZone: "UTC" })).toBe("15. Jan. 2024");
  });
});

describe("timeAgo", () => {
  it("uses the largest unit that fits", () => {
    const now = new Date("2024-06-10T12:00:00Z");
    expect(timeAgo("2024-06-10T09:00:00Z", now)).toBe("3 hours ago");
    expect(timeAgo("2024-06-03T12:00:00Z", now)).toBe("last week");
    expect(timeAgo("2024-06-10T11:59:30Z", now)).toBe("this minute");
  });
});
