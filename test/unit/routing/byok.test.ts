import { describe, expect, it } from 'vitest';
import { callerProviderKey, CredentialPlan } from '../../../src/routing/byok.js';
import { resolveModel } from '../../../src/routing/resolve-model.js';
import { loadTestConfig } from '../../helpers/start-gateway.js';

const config = loadTestConfig(`
providers:
  east: { api: openai, base_url: "http://127.0.0.1:1/v1", api_key: sk-east-configured, byok: optional,
          models: { m: { context_window: 100 } } }
  east2: { api: openai, base_url: "http://127.0.0.1:1/v1", api_key: sk-east2-configured, byok: optional,
           models: { m: { context_window: 100 } } }
  west: { api: openai, base_url: "http://127.0.0.1:2/v1", api_key: sk-west-configured, byok: optional,
          models: { m: { context_window: 100 } } }
  own: { api: openai, base_url: "http://127.0.0.1:3/v1", byok: required, models: { m: { context_window: 100 } } }
  fixed: { api: openai, base_url: "http://127.0.0.1:4/v1", api_key: sk-fixed-configured,
           models: { m: { context_window: 100 } } }
aliases:
  t/spread: { strategy: ordered, targets: [ east/m, west/m, east2/m, fixed/m ] }
  t/spread-any: { strategy: ordered, targets: [ east/m, west/m, fixed/m ], byok_fallback: configured_keys }
roles: { r: { models: ["*"] } }
keys: [ { id: k, key: "key-key-key-key", role: r } ]
`);

const candidates = (id: string) => resolveModel(config, id)!.candidates;

describe('callerProviderKey', () => {
  it('reads x-provider-api-key, trimmed; empty counts as absent', () => {
    expect(callerProviderKey({ 'x-provider-api-key': ' sk-mine ' })).toBe('sk-mine');
    expect(callerProviderKey({ 'x-provider-api-key': '  ' })).toBeUndefined();
    expect(callerProviderKey({})).toBeUndefined();
  });
});

describe('CredentialPlan', () => {
  it("does not tie the caller's key to a provider before an attempt is made there", () => {
    const plan = new CredentialPlan('sk-mine', 'same_provider');
    const [east, west] = candidates('t/spread');
    expect(plan.credentialFor(east)).toEqual({ apiKey: 'sk-mine', byok: true }); // e.g. skipped: cooling down
    expect(plan.credentialFor(west)).toEqual({ apiKey: 'sk-mine', byok: true });
  });

  it('with configured_keys, never serves with a configured key before the caller key was used', () => {
    const plan = new CredentialPlan('sk-mine', 'configured_keys');
    expect(plan.credentialFor(candidates('fixed/m')[0])).toMatchObject({ skip: expect.any(String) });
  });

  it('rejects a key nobody may take (400) and a missing key everyone requires (401)', () => {
    expect(() => CredentialPlan.check(candidates('fixed/m'), 'sk-mine')).toThrow(
      expect.objectContaining({ code: 'provider_key_not_allowed', status: 400 }),
    );
    expect(() => CredentialPlan.check(candidates('own/m'), undefined)).toThrow(
      expect.objectContaining({ code: 'provider_key_required', status: 401 }),
    );
    expect(() => CredentialPlan.check(candidates('t/spread'), 'sk-mine')).not.toThrow();
  });

  it('without a caller key: configured keys, providers requiring one skipped', () => {
    const plan = new CredentialPlan(undefined, 'same_provider');
    expect(plan.credentialFor(candidates('east/m')[0])).toEqual({ apiKey: 'sk-east-configured', byok: false });
    expect(plan.credentialFor(candidates('own/m')[0])).toMatchObject({ skip: expect.stringContaining('requires') });
  });

  it("keeps the caller's key on the account of its first use (same api and base_url)", () => {
    const plan = new CredentialPlan('sk-mine', 'same_provider');
    const attempt = (c: ReturnType<typeof candidates>[number]) => {
      const cred = plan.credentialFor(c);
      if (!('skip' in cred)) plan.used(c, cred);
      return cred;
    };
    const used = candidates('t/spread').map((c) => [c.provider.id, attempt(c)]);
    expect(used).toEqual([
      ['east', { apiKey: 'sk-mine', byok: true }],
      ['west', { skip: expect.any(String) }],
      ['east2', { apiKey: 'sk-mine', byok: true }],
      ['fixed', { skip: expect.any(String) }],
    ]);
  });

  it('with byok_fallback: configured_keys, other providers are tried with their own configured key', () => {
    const plan = new CredentialPlan('sk-mine', 'configured_keys');
    const used = candidates('t/spread-any').map((c) => {
      const cred = plan.credentialFor(c);
      if (!('skip' in cred)) plan.used(c, cred);
      return cred;
    });
    expect(used).toEqual([
      { apiKey: 'sk-mine', byok: true },
      { apiKey: 'sk-west-configured', byok: false },
      { apiKey: 'sk-fixed-configured', byok: false },
    ]);
  });
});
