import { describe, expect, it } from 'vitest';
import { whereItRan } from '../../src/shared/service-place';

describe('where a research run was made, in words', () => {
  it('the embedded local service (a loopback address and a passing port) is "this computer"', () => {
    expect(whereItRan('http://127.0.0.1:38683')).toBe('on this computer');
    expect(whereItRan('http://localhost:4100/')).toBe('on this computer');
    expect(whereItRan('http://[::1]:4100')).toBe('on this computer');
  });

  it('a remote service is named by its host', () => {
    expect(whereItRan('https://signals.example.com')).toBe('via signals.example.com');
    expect(whereItRan('http://10.0.0.5:8080/api')).toBe('via 10.0.0.5:8080');
  });
});
