/** Seconds until the service's Retry-After has passed (from the status), ticking while it runs. */
import { useEffect, useState } from 'react';
import { useAppStore } from '../store/app-store';

export function useRetryAfterSeconds(): number {
  const retryAt = useAppStore((s) => s.serviceStatus?.retryAt ?? null);
  const [, setTick] = useState(0);
  useEffect(() => {
    if (!retryAt || retryAt <= Date.now()) return;
    const timer = setInterval(() => {
      setTick((tick) => tick + 1);
      if (retryAt <= Date.now()) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
  }, [retryAt]);
  return retryAt ? Math.max(0, Math.ceil((retryAt - Date.now()) / 1000)) : 0;
}

/** The service's own "Retry in 54 s." is dropped: the app counts down itself. */
export const withoutRetryHint = (message: string): string => message.replace(/\s*Retry in \d+\s*s\.?/i, '').trim();
