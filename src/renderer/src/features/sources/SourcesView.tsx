// The Sources view: the fetched sources (SourceCard), adding one (AddSource), the proposals queue (Proposals), the sample.
import { useCallback, useEffect, useState } from 'react';
import { ruleClauses } from '../health/health-figures';
import type { SourcesOverview } from '../../../../shared/sources';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';
import { AddSource } from './AddSource';
import { Proposals } from './Proposals';
import { SourceCard } from './SourceCard';
import { FirstSourcesIntro, StarterPackPanel, takeStarterPackWish } from './StarterPack';
import './sources.css';

/** How often the open view asks for fresh facts (a fetch may have happened since). */
const REFRESH_MS = 5_000;

/**
 * Sources: the feeds the service in use really fetches, with the facts behind their health (why
 * degraded, when next fetched, their fetch history), managed by the service's administrator: add
 * by pasting an address (previewed first), pause, edit, remove; and the proposals queue. On the
 * embedded service the analyst is its administrator; on a remote one the controls appear only
 * when the service says the credential is an administrator's.
 */
export function SourcesView() {
  const [overview, setOverview] = useState<SourcesOverview | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  // Issue 47: the starter pack, open at once when the health view's first screen asked for it.
  const [packOpen, setPackOpen] = useState(takeStarterPackWish);
  const serviceState = useAppStore((s) => s.serviceStatus?.state);
  const setView = useAppStore((s) => s.setView);

  const refresh = useCallback(async () => {
    const result = await clarity().invoke('sources.overview');
    if (result.ok) {
      // While the local service restarts (a host allowed or withdrawn) it is briefly unavailable:
      // the view, and the address being added, stay as they were until it answers again.
      const next = result.value;
      setOverview((previous) => (next.access === 'unavailable' && previous?.access === 'admin' ? previous : next));
      setLoadError(null);
    } else setLoadError(result.error.message);
  }, []);
  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh, serviceState]);

  const admin = overview?.access === 'admin';
  return (
    <div className="sources-layout">
      <section className="sources-view" aria-label="Sources">
        <div className="health-head">
          <h1>Sources</h1>
          <span className="hint" data-testid="sources-service">
            {overview ? (overview.mode === 'local' ? 'The local service on this computer: you are its administrator.' : 'The remote service in use.') : 'Asking the service…'}
          </span>
          <span className="spacer" />
          <button type="button" className="link" onClick={() => setView('health')} data-testid="sources-to-health">
            Health overview →
          </button>
        </div>
        {loadError ? (
          <p className="notice" role="alert" data-testid="sources-error">
            {loadError}
          </p>
        ) : null}
        {overview && !admin ? (
          <p className="notice" role="status" data-testid="sources-not-admin" data-access={overview.access}>
            {overview.accessReason}
          </p>
        ) : null}
        {admin && overview.sources.length === 0 ? (
          <FirstSourcesIntro
            where="sources"
            onAdd={() => document.querySelector<HTMLInputElement>('[data-testid="add-source-url"]')?.focus()}
            onPack={() => setPackOpen(true)}
          />
        ) : null}
        {admin && packOpen ? <StarterPackPanel onAdded={() => void refresh()} onClose={() => setPackOpen(false)} /> : null}
        {admin ? <AddSource onAdded={() => void refresh()} /> : null}
        {admin ? (
          <>
            <h2 className="sources-h2">Fetched sources</h2>
            {overview.sources.length === 0 ? (
              <p className="empty-state" data-testid="sources-empty">
                None yet. Paste the address of a feed you follow above: an exchange&apos;s announcements, a company newsroom, a business paper&apos;s retail section, a regulator&apos;s press releases, or a folder of your own documents.
              </p>
            ) : (
              <ul className="source-cards" data-testid="sources-list">
                {overview.sources.map((source) => (
                  <SourceCard key={source.id} source={source} open={openId === source.id} onToggle={() => setOpenId(openId === source.id ? null : source.id)} onChanged={refresh} />
                ))}
              </ul>
            )}
            {overview.healthRule ? (
              <p className="hint" data-testid="sources-health-rule">
                How health is decided: {healthRuleInWords(overview.healthRule)}
              </p>
            ) : null}
            <Proposals proposals={overview.proposals} error={overview.proposalsError} onChanged={refresh} />
          </>
        ) : null}
        {overview?.sample ? (
          <div className="sample-card" data-testid="sources-sample">
            <span className="badge">Sample</span> <strong>The synthetic sample corpus</strong>
            <p className="hint">
              {overview.mode === 'local' ? 'The local service also holds' : 'This service also holds'} a made-up sample of India&apos;s retail sector (real names, synthetic figures) so the app is useful offline. It is not one of the sources above; the service describes it as “<span data-testid="sources-sample-said">{overview.sample}</span>”. Its signals are marked as sample wherever they are cited.
            </p>
          </div>
        ) : null}
      </section>
    </div>
  );
}

/** The service's health rule in the app's words (issue 47), as the health view sets it out; quoted when not in that form. */
function healthRuleInWords(rule: string): string {
  const clauses = ruleClauses(rule);
  if (!clauses) return `“${rule}”`;
  return clauses.map((clause) => `${clause.word[0]!.toUpperCase()}${clause.word.slice(1)}: ${clause.meaning}.`).join(' ');
}
