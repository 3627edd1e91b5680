/**
 * The Spectral ruleset the OpenAPI document is held to: every rule of `spectral:oas`
 * (recommended or not), with each exception justified here. `.spectral.yaml` at the root says
 * the same for the Spectral CLI (`npx spectral lint openapi.yaml`).
 */
import type { RulesetDefinition } from '@stoplight/spectral-core';

export function spectralRuleset(oas: unknown): RulesetDefinition {
  return {
    extends: [[oas, 'all']],
    rules: {
      // The local service has no support mailbox: its contact is the developer area's URL.
      'contact-properties': 'off',
      // OpenAPI 3.1 makes a license's `identifier` (SPDX) and `url` mutually exclusive; we give the identifier.
      'license-url': 'off',
    },
  } as RulesetDefinition;
}
