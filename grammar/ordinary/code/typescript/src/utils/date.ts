// policyc ordinary sample: an everyday TypeScript utility module (pure functions, types).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/typescript/ to measure rule breadth.

export type DateInput = Date | string | number;

const MS_PER_DAY = 24 * 60 * 60 * 1000;

export function toDate(value: DateInput): Date {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new RangeError(`Invalid date: ${String(value)}`);
  }
  return date;
}

export function addDays(value: DateInput, days: number): Date {
  const date = toDate(value);
  return new Date(date.getTime() + days * MS_PER_DAY);
}

export function startOfDay(value: DateInput): Date {
  const date = toDate(value);
  return new Date(date.getFullYear(), date.getMonth(), date.getDate());
}

export function daysBetween(from: DateInput, to: DateInput): number {
  const start = startOfDay(from).getTime();
  const end = startOfDay(to).getTime();
  return Math.round((end - start) / MS_PER_DAY);
}

export function isWeekend(value: DateInput): boolean {
  const day = toDate(value).getDay();
  return day === 0 || day === 6;
}

export interface FormatOptions {
  locale?: string;
  withTime?: boolean;
  timeZone?: string;
}

export function formatDate(value: DateInput, options: FormatOptions = {}): string {
  const { locale = "en-US", withTime = false, timeZone } = options;
  const formatter = new Intl.DateTimeFormat(locale, {
    year: "numeric",
    month: "short",
    day: "numeric",
    ...(withTime ? { hour: "2-digit", minute: "2-digit" } : {}),
    timeZone,
  });
  return formatter.format(toDate(value));
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["year", 365 * MS_PER_DAY],
  ["month", 30 * MS_PER_DAY],
  ["week", 7 * MS_PER_DAY],
  ["day", MS_PER_DAY],
  ["hour", 60 * 60 * 1000],
  ["minute", 60 * 1000],
];

export function timeAgo(value: DateInput, now: DateInput = Date.now(), locale = "en"): string {
  const diff = toDate(value).getTime() - toDate(now).getTime();
  const formatter = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size) {
      return formatter.format(Math.round(diff / size), unit);
    }
  }
  return formatter.format(0, "minute");
}
