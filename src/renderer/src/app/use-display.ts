/**
 * The formatting module bound to the user's display settings (zone, cost currency), for views:
 * `const d = useDisplay(); d.date(iso)`. Every date, time and cost on screen goes through it.
 */
import { useMemo } from 'react';
import {
  DEFAULT_DISPLAY, formatAgo, formatCost, formatDate, formatDateTime, formatDayAge, formatTime, resolveZone, type DisplayPreferences,
} from '../../../shared/format';
import { useAppStore } from '../store/app-store';

type Instant = string | number | Date | null | undefined;

export interface Display {
  prefs: DisplayPreferences;
  zone: string;
  date(value: Instant): string;
  time(value: Instant): string;
  dateTime(value: Instant): string;
  dayAge(value: Instant, now?: number): string;
  ago(value: Instant, now?: number): string;
  cost(usd: number | null | undefined): string;
}

export function displayFor(prefs: DisplayPreferences): Display {
  const zone = resolveZone(prefs.timeZone);
  return {
    prefs,
    zone,
    date: (value) => formatDate(value, zone),
    time: (value) => formatTime(value, zone),
    dateTime: (value) => formatDateTime(value, zone),
    dayAge: (value, now = Date.now()) => formatDayAge(value, now, zone),
    ago: (value, now = Date.now()) => formatAgo(value, now, zone),
    cost: (usd) => formatCost(usd, prefs),
  };
}

export function useDisplay(): Display {
  const prefs = useAppStore((s) => s.settings?.display) ?? DEFAULT_DISPLAY;
  return useMemo(() => displayFor(prefs), [prefs]);
}
