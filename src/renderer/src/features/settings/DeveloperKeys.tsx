import { useCallback, useEffect, useState } from 'react';
import type { ApiKeySummary, IssuedApiKey } from '../../../../shared/bridge-contract';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';
import '../discover/surfaces.css';

/** Settings → Developer: API keys on the service, managed with your JWT. A new key is shown once. */
export function DeveloperKeys() {
  const credential = useAppStore((s) => s.credentialStatus);
  const [keys, setKeys] = useState<ApiKeySummary[] | null>(null);
  const [issued, setIssued] = useState<IssuedApiKey | null>(null);
  const [store, setStore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Issue 47: the owner of the local service manages its keys with nothing typed (its token is a JWT).
  const canManage = (credential?.set === true && credential.kind === 'jwt') || (credential?.set === false && credential.owner === true);

  const refresh = useCallback(async () => {
    const result = await clarity().invoke('developer.listKeys');
    if (result.ok) setKeys(result.value);
    else setError(result.error.message);
  }, []);
  useEffect(() => {
    if (canManage) void refresh();
  }, [canManage, refresh]);

  return (
    <fieldset className="sf-keys" data-testid="developer-keys">
      <legend>Developer: API keys</legend>
      {!canManage ? (
        <p className="hint">Save a JWT above to list, issue and revoke API keys (an API key cannot manage keys).</p>
      ) : (
        <>
          <label>
            <input type="checkbox" checked={store} onChange={(e) => setStore(e.target.checked)} data-testid="key-store" /> Use the new key as this app's credential (saved in the keychain; replaces the JWT)
          </label>
          <button
            type="button"
            data-testid="key-issue"
            onClick={async () => {
              const result = await clarity().invoke('developer.issueKey', { storeInKeychain: store });
              if (!result.ok) return setError(result.error.message);
              setError(null);
              setIssued(result.value);
              if (!result.value.storedInKeychain) void refresh();
            }}
          >
            Issue a key
          </button>
          {error ? (
            <p className="notice" role="alert">
              {error}
            </p>
          ) : null}
          <table>
            <tbody>
              {(keys ?? []).map((key) => (
                <tr key={key.id} data-testid="key-row">
                  <td className="mono">{key.id}</td>
                  <td>…{key.last4}</td>
                  <td>{key.revokedAt ? 'revoked' : 'active'}</td>
                  <td>
                    {!key.revokedAt ? (
                      <button
                        type="button"
                        onClick={async () => {
                          const result = await clarity().invoke('developer.revokeKey', { id: key.id });
                          if (result.ok) setKeys(result.value);
                          else setError(result.error.message);
                        }}
                      >
                        Revoke
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {issued ? (
        <div role="status">
          <p>
            <strong>Copy your new key now: it is shown once.</strong> {issued.storedInKeychain ? 'It is also saved in the keychain as this app\'s credential.' : ''}
          </p>
          <p className="sf-new-key" data-testid="key-new">
            {issued.key}
          </p>
          <button type="button" onClick={() => setIssued(null)}>
            Done, hide it
          </button>
        </div>
      ) : null}
    </fieldset>
  );
}
