import { useCallback, useEffect, useState } from 'react';
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS, type DeliveryView, type WebhookEventName, type WebhookView, type WebhookWithSecret } from '../../../../shared/webhooks';
import { useDisplay } from '../../app/use-display';
import { clarity } from '../../bridge/clarity';
import { useAppStore } from '../../store/app-store';
import '../discover/surfaces.css';

// Every event the service announces, from the one shared list (the service validates against it too).
const EVENTS = WEBHOOK_EVENTS.map((value) => ({ value, label: WEBHOOK_EVENT_DESCRIPTIONS[value] }));
type EventName = WebhookEventName;

/**
 * Settings › Developer: webhooks on the service in use, beside the API keys. Create (URL and
 * events), see the signing secret once, list, delete, rotate the secret, and each delivery with
 * its state, attempts and the receiver's response code; send one again.
 * SECURITY: a secret lives in this component's state only until "Done, hide it"; the store never has it.
 */
export function DeveloperWebhooks() {
  const credential = useAppStore((s) => s.credentialStatus);
  const display = useDisplay();
  const [hooks, setHooks] = useState<WebhookView[] | null>(null);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>(['research.completed']);
  const [secret, setSecret] = useState<(WebhookWithSecret & { rotated: boolean }) | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [deliveries, setDeliveries] = useState<DeliveryView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Issue 47: the owner of the local service manages its webhooks with nothing typed.
  const canManage = credential?.set === true || credential?.owner === true;

  const refresh = useCallback(async () => {
    const result = await clarity().invoke('developer.listWebhooks');
    if (result.ok) setHooks(result.value);
    else setError(result.error.message);
  }, []);
  useEffect(() => {
    if (canManage) void refresh();
  }, [canManage, refresh]);

  const loadDeliveries = async (id: string): Promise<void> => {
    const result = await clarity().invoke('developer.webhookDeliveries', { id });
    if (result.ok) {
      setOpen(id);
      setDeliveries(result.value);
      setError(null);
    } else setError(result.error.message);
  };

  const create = async (): Promise<void> => {
    const result = await clarity().invoke('developer.createWebhook', { url: url.trim(), events });
    if (!result.ok) return setError(result.error.message);
    setError(null);
    setUrl('');
    setSecret({ ...result.value, rotated: false });
    await refresh();
  };

  return (
    <fieldset className="sf-keys" data-testid="developer-webhooks">
      <legend>Developer: webhooks</legend>
      {!canManage ? (
        <p className="hint">Save a credential above (a JWT or an API key) to manage this service&apos;s webhooks.</p>
      ) : (
        <>
          <p className="hint">The service POSTs each event to your URL, signed with the webhook&apos;s secret (<span className="mono">X-Clarity-Signature</span>).</p>
          <div className="row">
            <input
              type="url"
              placeholder="https://hooks.example.com/retail"
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              aria-label="Webhook URL"
              data-testid="webhook-url"
            />
          </div>
          <div className="row" role="group" aria-label="Events">
            {EVENTS.map((event) => (
              <label key={event.value}>
                <input
                  type="checkbox"
                  checked={events.includes(event.value)}
                  onChange={(change) => setEvents(change.target.checked ? [...events, event.value] : events.filter((e) => e !== event.value))}
                  data-testid={`webhook-event-${event.value}`}
                />{' '}
                {event.label}
              </label>
            ))}
          </div>
          <button type="button" onClick={() => void create()} disabled={url.trim().length === 0 || events.length === 0} data-testid="webhook-create">
            Create webhook
          </button>
          {error ? (
            <p className="notice" role="alert" data-testid="webhook-error">
              {error}
            </p>
          ) : null}
          {secret ? (
            <div role="status" data-testid="webhook-secret-box">
              <p>
                <strong>{secret.rotated ? 'The new signing secret' : 'The signing secret'} of {secret.webhook.url}: copy it now, it is shown once.</strong>{' '}
                {secret.rotated ? 'The old one no longer signs deliveries.' : ''}
              </p>
              <p className="sf-new-key" data-testid="webhook-secret">
                {secret.secret}
              </p>
              <button type="button" onClick={() => setSecret(null)} data-testid="webhook-secret-hide">
                Done, hide it
              </button>
            </div>
          ) : null}
          <table>
            <tbody>
              {(hooks ?? []).map((hook) => (
                <tr key={hook.id} data-testid="webhook-row" data-webhook-id={hook.id}>
                  <td className="mono">{hook.url}</td>
                  <td>{hook.events.join(', ')}</td>
                  <td>
                    <button type="button" onClick={() => void loadDeliveries(hook.id)} data-testid="webhook-deliveries">
                      Deliveries
                    </button>{' '}
                    <button
                      type="button"
                      className="secondary"
                      data-testid="webhook-rotate"
                      onClick={async () => {
                        const result = await clarity().invoke('developer.rotateWebhookSecret', { id: hook.id });
                        if (result.ok) setSecret({ ...result.value, rotated: true });
                        else setError(result.error.message);
                      }}
                    >
                      Rotate secret
                    </button>{' '}
                    <button
                      type="button"
                      className="secondary"
                      data-testid="webhook-delete"
                      onClick={async () => {
                        const result = await clarity().invoke('developer.deleteWebhook', { id: hook.id });
                        if (!result.ok) return setError(result.error.message);
                        setHooks(result.value);
                        if (open === hook.id) setOpen(null);
                      }}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {open && deliveries ? (
            <div data-testid="webhook-delivery-list">
              <div className="row">
                <strong>Deliveries of {hooks?.find((hook) => hook.id === open)?.url ?? open}</strong>
                <button type="button" className="secondary" onClick={() => void loadDeliveries(open)} data-testid="webhook-deliveries-refresh">
                  Refresh
                </button>
              </div>
              {deliveries.length === 0 ? <p className="hint">No deliveries yet.</p> : null}
              <table>
                <thead>
                  <tr>
                    <th>Event</th>
                    <th>Created</th>
                    <th>State</th>
                    <th>Attempts</th>
                    <th>Response</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {deliveries.map((delivery) => {
                    const last = delivery.attempts.at(-1);
                    return (
                      <tr key={delivery.id} data-testid="webhook-delivery" data-state={delivery.state}>
                        <td>{delivery.event}</td>
                        <td>{display.dateTime(delivery.createdAt)}</td>
                        <td data-testid="webhook-delivery-state">{delivery.state}</td>
                        <td data-testid="webhook-delivery-attempts">{delivery.attempts.length}</td>
                        <td data-testid="webhook-delivery-status">{last ? (last.status ?? last.error ?? 'no answer') : '—'}</td>
                        <td>
                          <button
                            type="button"
                            className="secondary"
                            data-testid="webhook-redeliver"
                            onClick={async () => {
                              const result = await clarity().invoke('developer.redeliver', { id: open, deliveryId: delivery.id });
                              if (result.ok) setDeliveries(result.value);
                              else setError(result.error.message);
                            }}
                          >
                            Send again
                          </button>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      )}
    </fieldset>
  );
}
