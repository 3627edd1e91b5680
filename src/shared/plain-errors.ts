/**
 * Errors a user can fix in Settings, in plain words (issue #16): the service's own message
 * ("send a bearer JWT or an API key…") is for developers; the app says what to do.
 */

/** Error codes that send the user to Settings › Credential. */
export const CREDENTIAL_ERROR_CODES: readonly string[] = ['unauthorized', 'forbidden'];

export function needsCredential(code: string | null | undefined): boolean {
  return !!code && CREDENTIAL_ERROR_CODES.includes(code);
}

/** What to tell the user when `action` ("Research") failed for want of a (better) credential; null otherwise. */
export function credentialProblem(code: string | null | undefined, action: string, options: { credentialSet?: boolean } = {}): string | null {
  if (code === 'unauthorized' && options.credentialSet) {
    return `The service refused your credential as invalid or expired, so ${action.toLowerCase()} cannot run. Renew it in Settings › Credential, then retry.`;
  }
  if (code === 'unauthorized') {
    return `${action} needs you to be signed in to the service, and the app has no credential the service accepts. Add one in Settings › Credential (with the local service: "Get a development token"), then retry.`;
  }
  if (code === 'forbidden') return `Your credential does not allow ${action.toLowerCase()}. Use one with access in Settings › Credential, then retry.`;
  return null;
}
