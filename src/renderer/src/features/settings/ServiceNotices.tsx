import { useCallback, useEffect, useState } from 'react';
import type { ServiceChangelogView, ServiceNotice } from '../../../../shared/service-notices';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { openExternalLink } from '../citations/open-link';
import { useAppStore } from '../../store/app-store';

/**
 * Settings › Service notices: what the service in use has announced about itself (a
 * `Deprecation` or `Sunset` header on one of its responses), and "What's new in the service",
 * its changelog. Both follow the service in use.
 */
export function ServiceNotices() {
  const display = useDisplay();
  const serviceUrl = useAppStore((s) => s.serviceStatus?.baseUrl ?? null);
  const pushed = useAppStore((s) => s.notices.filter((n) => n.service).length);
  const [notices, setNotices] = useState<ServiceNotice[] | null>(null);
  const [changelog, setChangelog] = useState<ServiceChangelogView | null>(null);
  const [changelogError, setChangelogError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    void clarity()
      .invoke('notices.list')
      .then((result) => result.ok && setNotices(result.value));
  }, [serviceUrl, pushed]);

  const loadChangelog = useCallback(async () => {
    setLoading(true);
    const result = await clarity().invoke('notices.changelog');
    setLoading(false);
    if (result.ok) {
      setChangelog(result.value);
      setChangelogError(null);
    } else setChangelogError(result.error.message);
  }, []);

  return (
    <>
      <fieldset data-testid="service-notices">
        <legend>Service notices</legend>
        {notices && notices.length > 0 ? (
          <ul className="service-notices">
            {notices.map((notice) => (
              <li key={notice.id} data-testid="service-notice-row">
                <strong>{notice.what}</strong> <span className="mono">({notice.method} {notice.path})</span>
                <br />
                Deprecated by {notice.serviceLabel}
                {notice.deprecatedAt ? ` since ${display.date(notice.deprecatedAt)}` : ''}.{' '}
                <span data-testid="service-notice-sunset">
                  {notice.sunsetAt ? `It may stop working after ${display.date(notice.sunsetAt)}.` : 'No end date given.'}
                </span>
                <br />
                <span className="hint">{notice.change}</span>
                {notice.link ? (
                  <>
                    {' '}
                    <button type="button" className="link" onClick={() => void openExternalLink(notice.link!)}>
                      What the service says
                    </button>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="hint" data-testid="service-notices-empty">
            The service in use has announced nothing about what it uses: no response has carried a Deprecation or Sunset header.
          </p>
        )}
      </fieldset>
      <fieldset data-testid="whats-new">
        <legend>What&apos;s new in the service</legend>
        <div className="row">
          <button type="button" className="secondary" onClick={() => void loadChangelog()} disabled={loading} data-testid="whats-new-load">
            {changelog ? 'Check again' : 'Show what\u2019s new'}
          </button>
          {changelog?.pageUrl ? (
            <button type="button" className="link" onClick={() => void openExternalLink(changelog.pageUrl!)}>
              Open the changelog page
            </button>
          ) : null}
        </div>
        {changelogError ? (
          <p className="hint" role="status" data-testid="whats-new-error">
            {changelogError}
          </p>
        ) : null}
        {changelog ? (
          <div data-testid="whats-new-entries">
            <p className="hint">The changelog of {changelog.serviceLabel}, newest first.</p>
            {changelog.deprecations.map((entry) => (
              <p key={`${entry.method} ${entry.path}`} data-testid="whats-new-deprecation">
                <strong>Deprecated:</strong> <span className="mono">{entry.method} {entry.path}</span>
                {entry.sunsetAt ? ` until ${display.date(entry.sunsetAt)}` : ''}
                {entry.replacement ? `; use ${entry.replacement}` : ''}. {entry.change ?? ''}
              </p>
            ))}
            {changelog.entries.map((entry) => (
              <details key={entry.title} data-testid="whats-new-entry" open={entry === changelog.entries[0]}>
                <summary>
                  {entry.version ?? entry.title}
                  {entry.date ? ` · ${display.date(`${entry.date}T12:00:00Z`)}` : ''}
                </summary>
                <ul>
                  {entry.notes.map((note, index) => (
                    <li key={index}>{note}</li>
                  ))}
                </ul>
              </details>
            ))}
          </div>
        ) : null}
      </fieldset>
    </>
  );
}
