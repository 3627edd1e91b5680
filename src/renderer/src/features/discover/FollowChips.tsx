import { useState } from 'react';
import type { FollowTargetArgs } from '../../../../shared/watchlist';
import { useAppStore } from '../../store/app-store';

/** One shared empty list: a selector returning a fresh `[]` would re-render without end. */
const NO_FOLLOWS: never[] = [];

export interface FollowChoice {
  label: string;
  target: FollowTargetArgs;
}

/** Follow buttons for what a signal, source or search names; a followed target shows ✓. */
export function FollowChips({ targets, title = 'Follow:' }: { targets: FollowChoice[]; title?: string }) {
  const follow = useAppStore((s) => s.follow);
  const follows = useAppStore((s) => s.watchlist?.follows ?? NO_FOLLOWS);
  const [message, setMessage] = useState<string | null>(null);
  const followed = (target: FollowTargetArgs) => follows.some((f) => f.target.type === target.type && f.target.value.toLowerCase() === target.value.toLowerCase());
  if (targets.length === 0) return null;
  return (
    <>
      <div className="sf-follow-row">
        <span className="hint">{title}</span>
        {targets.map(({ label, target }) => (
          <button
            key={`${target.type}:${target.value}`}
            type="button"
            className="sf-chip"
            disabled={followed(target)}
            data-testid={`follow-${target.type}`}
            onClick={async () => {
              const result = await follow(target);
              setMessage(result.ok ? `Following ${label}.` : result.message);
            }}
          >
            {followed(target) ? '✓ ' : '+ '}
            {label}
          </button>
        ))}
      </div>
      {message ? (
        <p className="hint" role="status" data-testid="follow-message">
          {message}
        </p>
      ) : null}
    </>
  );
}

/** What a signal names, as follow choices: its retailers, segments, cities and its source. */
export function followChoicesOf(entities: { retailers: string[]; segments: string[]; cities: string[] }, source: { id: string; name: string } | null): FollowChoice[] {
  return [
    ...entities.retailers.map((value) => ({ label: value, target: { type: 'entity' as const, value } })),
    ...entities.segments.map((value) => ({ label: value, target: { type: 'segment' as const, value } })),
    ...entities.cities.map((value) => ({ label: value, target: { type: 'city' as const, value } })),
    ...(source ? [{ label: source.name, target: { type: 'source' as const, value: source.id } }] : []),
  ];
}
